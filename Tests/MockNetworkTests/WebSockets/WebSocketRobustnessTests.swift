import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

/// Nothing a client sends crashes or hangs the server: thousands of malformed frames and sockets
/// left half-closed, from clients on bare sockets in parallel, and then a good socket still echoes.
final class WebSocketRobustnessTests: XCTestCase {
    /// One frame, broken one way or another (or, now and then, a good one).
    private static func malformedFrame(_ random: inout FuzzInput) -> [UInt8] {
        let payload = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
        }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return RawWebSocketClient.frame(opcode: 0x1, payload, masked: false)
        case 1: return RawWebSocketClient.frame(opcode: 0x1, payload, reserved: UInt8.random(in: 1...7, using: &random))
        case 2:
            return RawWebSocketClient.frame(
                opcode: [3, 4, 5, 6, 7, 11, 12, 13, 14, 15].randomElement(using: &random)!, payload)
        case 3: return RawWebSocketClient.frame(opcode: 0x1, payload)  // random bytes as text: mostly not UTF-8
        case 4: return RawWebSocketClient.frame(opcode: 0x0, payload)
        case 5:
            return RawWebSocketClient.frame(opcode: 0x8, Array(payload.prefix(Int.random(in: 0...3, using: &random))))
        case 6:  // a length far past what follows, or past every limit
            return [0x82, 0xFF] + (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) } + payload
        case 7:  // a good frame cut short
            let frame = RawWebSocketClient.frame(opcode: 0x2, payload)
            return Array(frame.prefix(Int.random(in: 1...frame.count, using: &random)))
        default:  // bytes that are no frame at all
            return payload.isEmpty ? [0xFF] : payload
        }
    }

    func testThousandsOfMalformedFramesAndHalfClosedSocketsLeaveAGoodSocketEchoing() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let threads = 8
        let perThread = 200
        let framesSent = try await withWatchdog(120) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for thread in 0..<threads {
                    group.addTask {
                        try await offThread {
                            var random = FuzzInput(seed: UInt64(thread) &* 7919 &+ 1)
                            var frames = 0
                            for _ in 0..<perThread {
                                let client = try RawWebSocketClient(port: server.port, path: "/chat", timeout: 5)
                                defer { client.close() }
                                guard try client.readHandshake().status == 101 else { continue }
                                for _ in 0..<Int.random(in: 1...6, using: &random) {
                                    guard client.http.send(Self.malformedFrame(&random)) else { break }
                                    frames += 1
                                }
                                switch Int.random(in: 0..<3, using: &random) {
                                case 0: break  // closed at once
                                case 1:  // half-closed: the client ends its side and waits for the server's
                                    client.http.finishSending()
                                    XCTAssertTrue(client.waitForClose(), "the server closes a half-closed socket")
                                default:  // left open: the server's answer to what it sent, if any
                                    _ = client.http.hasDataWaiting(milliseconds: 1)
                                }
                            }
                            return frames
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        XCTAssertGreaterThanOrEqual(framesSent, 2000, "thousands of frames")

        try await withWatchdog(30) {
            try await offThread {
                let client = try RawWebSocketClient(port: server.port, path: "/chat")
                defer { client.close() }
                XCTAssertEqual(try client.readHandshake().status, 101)
                client.sendText("still here")
                XCTAssertEqual(try client.readFrame().text, "still here")
                client.sendClose(1000)
                XCTAssertEqual(try client.readFrame().closeCode, 1000)
            }
        }
        let failures = mocks.takeFailures()
        XCTAssertFalse(failures.isEmpty, "the test is told of what the clients broke")
        let unexpected = failures.filter {
            !$0.message.contains("broke the WebSocket protocol") && !$0.message.contains("that nothing read")
        }
        XCTAssertEqual(unexpected, [], "only the clients' own mistakes")
        XCTAssertEqual(mocks.webSockets.count, threads * perThread + 1)
    }
}
