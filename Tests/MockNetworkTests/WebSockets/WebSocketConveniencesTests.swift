import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

/// Sockets take what tests write first: a URL in a `String` or `URL` constant, plain text to send,
/// seconds as numbers, and the `ws://` URL of a path on the server.
final class WebSocketConveniencesTests: XCTestCase {
    func testAURLOrStringConstantRegistersEachForm() async throws {
        let chat = "wss://api.example.com/chat"
        let feed = try XCTUnwrap(URL(string: "wss://api.example.com/feed"))
        let mocks = MockRegistry()
        mocks.webSocket(chat) { socket in
            let message = try await socket.receive(timeout: 5)
            await socket.send("echo: \(message)")
        }
        mocks.webSocket(feed, onOpen: ["ready"], replies: [:])
        try await withSocket(mocks, path: "/chat") { client, _ in
            client.sendText("hi")
            let echo = try client.readFrame()
            XCTAssertEqual(echo.text, #"echo: "hi""#)
            client.sendClose(1000)
        }
        try await withSocket(mocks, path: "/feed") { client, _ in
            XCTAssertEqual(try client.readFrame().text, "ready")
            client.sendClose(1000)
        }
        XCTAssertEqual(mocks.webSockets.map(\.url.absoluteString), [chat, feed.absoluteString])
    }

    func testATestDrivenSocketWithSecondsAndPlainText() async throws {
        let mocks = MockRegistry()
        let game = "wss://api.example.com/game"
        mocks.webSocket(game)
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        XCTAssertEqual(server.webSocketURL("/game?room=1").absoluteString, "ws://127.0.0.1:\(server.port)/game?room=1")
        try await withWatchdog(30) {
            let client = try RawWebSocketClient(port: server.port, path: "/game")
            defer { client.close() }
            async let opened = offThread { try client.readHandshake().status }
            let socket = try await mocks.nextWebSocket(timeout: 5)
            let status = try await opened
            XCTAssertEqual(status, 101)
            await socket.send("your turn")
            let frame = try await offThread { try client.readFrame().text }
            XCTAssertEqual(frame, "your turn")
            client.sendText("e2e4")
            let (move, _) = try await mocks.nextWebSocketMessage(timeout: 5)
            XCTAssertEqual(move, "e2e4")
            client.sendClose(1000)
            try await socket.awaitClosed(timeout: 5)
        }
    }
}

/// `ping()` returns when the pong comes, and throws at its timeout when none comes: a client that
/// answers no ping leaves no test waiting forever.
final class WebSocketPingTests: XCTestCase {
    func testAPingIsAnsweredOrTimesOut() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/quiet")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(60) {
            let client = try RawWebSocketClient(port: server.port, path: "/quiet")
            defer { client.close() }
            async let opened = offThread { try client.readHandshake().status }
            let socket = try await mocks.nextWebSocket(timeout: 5)
            let status = try await opened
            XCTAssertEqual(status, 101)

            // The raw client answers nothing: the ping times out, with what was awaited.
            let start = ContinuousClock.now
            var thrown: WebSocketError?
            do { try await socket.ping(Data("1".utf8), timeout: 0.5) } catch let error as WebSocketError {
                thrown = error
            }
            let waited = ContinuousClock.now - start
            XCTAssertEqual(
                thrown, .timedOut("no pong to the ping on wss://api.example.com/quiet within 0.5 s"))
            XCTAssertGreaterThanOrEqual(waited, .milliseconds(500))
            XCTAssertLessThan(waited, .seconds(10), "a generous bound: the timeout is 0.5 s")
            let ping = try await offThread { try client.readFrame() }
            XCTAssertEqual(ping.opcode, 0x9)

            // Answered, it returns.
            async let pinged: Void = socket.ping(Data("2".utf8), timeout: 5)
            let second = try await offThread { try client.readFrame() }
            XCTAssertEqual([second.opcode], [0x9])
            XCTAssertEqual(second.payload, Array("2".utf8))
            client.send(opcode: 0xA, second.payload)
            try await pinged
            client.sendClose(1000)
            try await socket.awaitClosed(timeout: 5)
        }
    }
}

/// A socket no registration matches fails the test with a fix that registers a socket, not an HTTP
/// handler.
final class UnmatchedWebSocketFixTests: XCTestCase {
    func testAnUnmatchedSocketsFixShowsASocketRegistration() async throws {
        let mocks = MockRegistry()
        try await withSocket(mocks, path: "/chat", expectStatus: 404) { _, _ in }
        let failure = try XCTUnwrap(mocks.takeFailures().first?.message)
        XCTAssertTrue(failure.contains("no handler for GET wss://api.example.com/chat"), failure)
        XCTAssertTrue(
            failure.contains(
                #"Fix: register one for this URL, e.g. webSocket("wss://api.example.com/chat") { socket in "#),
            failure)
    }
}
