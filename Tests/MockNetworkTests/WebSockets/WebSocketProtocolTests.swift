import Foundation
import MockNetwork
import XCTest

@testable import MockNetworkServer

/// RFC 6455 done properly, from a client on a bare socket: masking, fragments with control frames
/// between them, UTF-8, close frames, limits, and a client that breaks a rule closed with the code
/// the RFC gives (and the test told what it sent).
final class WebSocketProtocolTests: XCTestCase {
    /// An echo registry: each message comes back as it came.
    private func echoRegistry() -> MockRegistry {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        return mocks
    }

    /// Sends `frames` (raw bytes) and checks the server closes with `code`, and that the test is told.
    private func assertFails(
        _ frames: [[UInt8]], closesWith code: UInt16, saying: String, limits: HTTPServerLimits = HTTPServerLimits(),
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks, limits: limits) { client, _ in
            for frame in frames { _ = client.http.send(frame) }
            let close = try client.readFrame()
            XCTAssertEqual(close.opcode, 0x8, file: file, line: line)
            XCTAssertEqual(close.closeCode, code, close.text, file: file, line: line)
            XCTAssertTrue(client.waitForClose(), "the server closes after a failure", file: file, line: line)
        }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.count, 1, "\(failures)", file: file, line: line)
        XCTAssertTrue(failures.first?.message.contains(saying) == true, "\(failures)", file: file, line: line)
        XCTAssertTrue(failures.first?.message.contains("broke the WebSocket protocol") == true, file: file, line: line)
    }

    private typealias Raw = RawWebSocketClient

    func testAnUnmaskedFrameClosesWith1002() async throws {
        try await assertFails(
            [Raw.frame(opcode: 0x1, Array("hi".utf8), masked: false)], closesWith: 1002, saying: "masked")
    }

    func testAReservedBitClosesWith1002() async throws {
        try await assertFails(
            [Raw.frame(opcode: 0x1, Array("hi".utf8), reserved: 0b100)], closesWith: 1002, saying: "reserved bit")
    }

    func testAReservedOpcodeClosesWith1002() async throws {
        try await assertFails([Raw.frame(opcode: 0x3, [])], closesWith: 1002, saying: "opcode 3")
    }

    func testAControlFrameOver125BytesOrFragmentedClosesWith1002() async throws {
        try await assertFails(
            [Raw.frame(opcode: 0x9, [UInt8](repeating: 1, count: 126))], closesWith: 1002, saying: "125 bytes")
        try await assertFails([Raw.frame(opcode: 0x9, [], fin: false)], closesWith: 1002, saying: "fragmented")
    }

    func testAContinuationWithNothingToContinueClosesWith1002() async throws {
        try await assertFails([Raw.frame(opcode: 0x0, Array("x".utf8))], closesWith: 1002, saying: "continuation")
    }

    func testANewMessageInsideAFragmentedOneClosesWith1002() async throws {
        try await assertFails(
            [Raw.frame(opcode: 0x1, Array("a".utf8), fin: false), Raw.frame(opcode: 0x1, Array("b".utf8))],
            closesWith: 1002, saying: "before the fragmented one ended")
    }

    func testTextThatIsNotUTF8ClosesWith1007WholeOrAcrossFragments() async throws {
        try await assertFails([Raw.frame(opcode: 0x1, [0xC3, 0x28])], closesWith: 1007, saying: "not UTF-8")
        // A character split across fragments is fine; a surrogate encoded is not.
        try await assertFails(
            [Raw.frame(opcode: 0x1, [0x61, 0xED], fin: false), Raw.frame(opcode: 0x0, [0xA0, 0x80])],
            closesWith: 1007, saying: "not UTF-8")
    }

    func testCloseFramesThatBreakTheRules() async throws {
        try await assertFails([Raw.frame(opcode: 0x8, [0x03])], closesWith: 1002, saying: "one byte")
        try await assertFails([Raw.frame(opcode: 0x8, [0x03, 0xED])], closesWith: 1002, saying: "1005 may not be sent")
        try await assertFails([Raw.frame(opcode: 0x8, [0x03, 0xE7])], closesWith: 1002, saying: "999 may not be sent")
        try await assertFails(
            [Raw.frame(opcode: 0x8, [0x03, 0xE8, 0xFF])], closesWith: 1007, saying: "close reason that is not UTF-8")
    }

    func testAMessageOverTheLimitClosesWith1009WholeOrInFragments() async throws {
        let limits = HTTPServerLimits(maxWebSocketMessageBytes: 1000)
        try await assertFails(
            [Raw.frame(opcode: 0x2, [UInt8](repeating: 0, count: 1001))], closesWith: 1009, saying: "over the limit",
            limits: limits)
        try await assertFails(
            [
                Raw.frame(opcode: 0x2, [UInt8](repeating: 0, count: 600), fin: false),
                Raw.frame(opcode: 0x0, [UInt8](repeating: 0, count: 600)),
            ], closesWith: 1009, saying: "over the limit", limits: limits)
        // A 64-bit length far past the limit is refused from its header, before any byte of it.
        try await assertFails(
            [[0x82, 0xFF, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00]], closesWith: 1009,
            saying: "over the limit", limits: limits)
    }

    func testFragmentsWithControlFramesBetweenThemMakeOneMessage() async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks) { client, _ in
            client.send(opcode: 0x1, Array("Hel".utf8), fin: false)
            client.send(opcode: 0x9, Array("between".utf8))  // a ping between fragments
            client.send(opcode: 0x0, [0xC3], fin: false)  // "é" split across fragments
            client.send(opcode: 0x0, [0xA9] + Array("lo".utf8))
            XCTAssertEqual(try client.readFrame(), .init(fin: true, opcode: 0xA, payload: Array("between".utf8)))
            XCTAssertEqual(try client.readFrame().text, "Helélo")
            client.send(opcode: 0x1, Array(String(repeating: "y", count: 70_000).utf8))  // a 64-bit length
            let long = try client.readFrame()
            XCTAssertEqual(long.payload.count, 70_000)
            XCTAssertEqual(long.text, String(repeating: "y", count: 70_000))
            client.sendClose(nil)
            XCTAssertEqual(try client.readFrame().payload, [], "a close with no code is answered with none")
            XCTAssertTrue(client.waitForClose())
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed()
        XCTAssertEqual(socket.closeCode, .noStatus)
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testFramesSplitAtEveryByteAreReadWhole() async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks) { client, _ in
            for byte in Raw.frame(opcode: 0x1, Array("one byte at a time".utf8)) { _ = client.http.send([byte]) }
            XCTAssertEqual(try client.readFrame().text, "one byte at a time")
            client.sendClose(1000)
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAClientThatLeavesWithoutACloseFrameEndsTheSocketAs1006() async throws {
        let mocks = echoRegistry()
        try await withSocket(mocks) { client, _ in
            client.sendText("bye")
            XCTAssertEqual(try client.readFrame().text, "bye")
            client.http.finishSending()
            XCTAssertTrue(client.waitForClose())
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed()
        XCTAssertEqual(socket.events.last, .closed(by: .client, code: .abnormal, reason: ""))
        XCTAssertNil(socket.closeCode, "no close frame came")
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAClientWhoseLastFrameAndEndOfStreamComeTogetherIsSeenToLeave() async throws {
        // One write: a frame, then the end of the stream. Linux's Dispatch fires once for both.
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await _ in socket.messages {}
        }
        try await withSocket(mocks) { client, _ in
            client.sendText("last words")
            client.http.finishSending()
            XCTAssertTrue(client.waitForClose())
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed(timeout: .seconds(1))
        XCTAssertEqual(socket.events, [.received("last words"), .closed(by: .client, code: .abnormal, reason: "")])
    }

    func testASlowReaderSlowsTheSenderInsteadOfFillingTheServersMemory() async throws {
        let mocks = MockRegistry()
        let count = 400
        let piece = Data(repeating: 7, count: 64 * 1024)  // 25 MiB in all: more than the sockets' buffers
        let progress = Shared(0)
        mocks.webSocket("wss://api.example.com/feed") { socket in
            for _ in 0..<count {
                await socket.send(.data(piece))
                progress.update { $0 += 1 }
            }
            _ = try await socket.receive()
        }
        try await withOpenSocket(mocks, path: "/feed", timeout: 20) { client, socket, _ in
            // The client reads nothing: the handler's sends stop short of the end, waiting for it. The
            // checks below hold whenever they run; the wait for the sends to stall only makes them
            // run once the sockets' buffers are full.
            var stalled = 0
            var last = -1
            while stalled < 50 {
                await Task.yield()
                let now = progress.current
                stalled = now == last ? stalled + 1 : 0
                last = now
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            XCTAssertLessThan(progress.current, count, "a reader that takes nothing holds the sender back")
            XCTAssertLessThanOrEqual(
                socket.queuedBytes, 64 * 1024 + piece.count + 16,
                "the server holds at most a message over its low water")
            let frames = try await offThread { try (0..<count).map { _ in try client.readFrame().payload.count } }
            XCTAssertEqual(frames, [Int](repeating: piece.count, count: count), "every message, in order, once read")
            client.sendText("done")
            let close = try await offThread { try client.readFrame().closeCode }
            XCTAssertEqual(close, 1000)
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAHandlerThatReadsNothingStopsTheServerReadingNotItsMemory() async throws {
        let mocks = MockRegistry()
        let gate = Gate()
        mocks.webSocket("wss://api.example.com/upload") { socket in
            await gate.wait()
            var total = 0
            for try await message in socket.messages { total += message.data.count }
            await socket.send(.text(String(total)))
        }
        // Writes wait at most a second: one that waits that long shows the server stopped reading.
        try await withOpenSocket(mocks, path: "/upload", timeout: 1) { client, socket, _ in
            let piece = [UInt8](repeating: 1, count: 60_000)
            // The client writes until its socket takes no more in the timeout, or 40 MiB at most.
            let sent = try await offThread { () -> Int in
                var sent = 0
                while sent < 700, client.send(opcode: 0x2, piece) { sent += 1 }
                return sent
            }
            XCTAssertLessThan(sent, 700, "the server stopped reading: the client's writes block")
            XCTAssertLessThanOrEqual(socket.unreadBytes, (1 << 20) + piece.count, "at most the inbox's capacity")
            gate.open()
        }
    }
}

/// A one-way gate a task awaits until the test opens it.
final class Gate: Sendable {
    private let state = Shared<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.update { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.update { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
