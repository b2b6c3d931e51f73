import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

/// Frames are handled in the order they came, and a broken rule is found at the byte that breaks it:
/// what Autobahn|Testsuite's cases 3.2-3.4, 4.x, 5.15 and 6.4.x check, from a client on a bare socket.
final class WebSocketOrderTests: XCTestCase {
    private typealias Raw = RawWebSocketClient

    private func echoRegistry() -> MockRegistry {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        return mocks
    }

    /// A valid message, then a frame with a reserved bit, then a ping, in one write: the echo comes,
    /// then the close with 1002, and no pong, in each of 20 tries (before, the close went first in
    /// most, and the echo was lost).
    func testAnEchoGoesOutBeforeTheCloseOfALaterBadFrame() async throws {
        for attempt in 0..<20 {
            let mocks = echoRegistry()
            try await withSocket(mocks) { client, _ in
                let bytes =
                    Raw.frame(opcode: 0x1, Array("hello \(attempt)".utf8))
                    + Raw.frame(opcode: 0x1, Array("bad".utf8), reserved: 0b100)
                    + Raw.frame(opcode: 0x9, Array("ping".utf8))
                _ = client.http.send(bytes)
                let echo = try client.readFrame()
                XCTAssertEqual(echo.opcode, 0x1, "try \(attempt): \(echo)")
                XCTAssertEqual(echo.text, "hello \(attempt)")
                let close = try client.readFrame()
                XCTAssertEqual(close.opcode, 0x8, "try \(attempt): \(close)")
                XCTAssertEqual(close.closeCode, 1002)
                XCTAssertTrue(client.waitForClose(), "the server closes after the failure")
            }
            let failures = mocks.takeFailures().map(\.message)
            XCTAssertEqual(failures.count, 1, "\(failures)")
            XCTAssertTrue(failures.first?.contains("reserved bit") == true, "\(failures)")
        }
    }

    /// A text message in fragments whose second makes it invalid UTF-8: 1007 right after that fragment,
    /// before the last one is sent (before, at the end of the message).
    func testInvalidUTF8InAFragmentFailsAtThatFragment() async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks) { client, _ in
            _ = client.http.send(Raw.frame(opcode: 0x1, Array("κόσμε".utf8), fin: false))
            // 0xF4 0x90 is past U+10FFFF: invalid whatever follows.
            _ = client.http.send(Raw.frame(opcode: 0x0, [0xCE, 0xBA, 0xF4, 0x90, 0x80, 0x80], fin: false))
            let close = try client.readFrame()
            XCTAssertEqual(close.opcode, 0x8)
            XCTAssertEqual(close.closeCode, 1007, close.text)
        }
    }

    /// One text frame whose bytes arrive in pieces: 1007 once the invalid byte has arrived, while the
    /// rest of the frame has not.
    func testInvalidUTF8InAFrameStillArrivingFailsAtTheByte() async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks) { client, _ in
            let text: [UInt8] = Array("hello ".utf8) + [0xED, 0xA0, 0x80] + Array(" and more text after it".utf8)
            let frame = Raw.frame(opcode: 0x1, text)
            // The head (2 bytes and the mask's 4) and the payload up to and with the invalid bytes.
            let cut = 6 + 9
            _ = client.http.send(Array(frame[..<cut]))
            let close = try client.readFrame()
            XCTAssertEqual(close.opcode, 0x8)
            XCTAssertEqual(close.closeCode, 1007, close.text)
        }
    }

    /// A valid text message in 3 frames whose characters are cut between frames and between writes:
    /// echoed whole, no failure.
    func testCharactersCutBetweenFragmentsAndWritesAreValid() async throws {
        let mocks = echoRegistry()
        let text = Array("Hello-µ@ßöäüàá-UTF-8!!".utf8)
        try await withSocket(mocks) { client, _ in
            let first = Raw.frame(opcode: 0x1, Array(text[..<7]), fin: false)
            let second = Raw.frame(opcode: 0x0, Array(text[7..<14]), fin: false)
            let third = Raw.frame(opcode: 0x0, Array(text[14...]))
            for piece in [first, Array(second[..<8]), Array(second[8...]), third] { _ = client.http.send(piece) }
            let echo = try client.readFrame()
            XCTAssertEqual(echo.payload, text)
        }
        XCTAssertEqual(mocks.takeFailures().map(\.message), [])
    }

    /// 16,384 fragments of 64 bytes (1 MiB) make one message, echoed whole, in linear time: each
    /// fragment used to copy the message so far (Autobahn's 9.3.1, 4 MiB in 64-byte fragments, took
    /// 11.6-18.5 s). The bound is generous: copying grows with the square of the fragments.
    func testManySmallFragmentsAreJoinedInLinearTime() async throws {
        let mocks = echoRegistry()
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 64)
        let count = 16_384
        var frames: [UInt8] = []
        frames.reserveCapacity(count * 80)
        for index in 0..<count {
            frames += Raw.frame(opcode: index == 0 ? 0x1 : 0x0, piece, fin: index == count - 1)
        }
        let message = frames
        let start = ContinuousClock.now
        try await withSocket(mocks) { client, _ in
            _ = client.http.send(message)
            let echo = try client.readFrame()
            XCTAssertEqual(echo.payload.count, count * 64)
        }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(20))
    }
}
