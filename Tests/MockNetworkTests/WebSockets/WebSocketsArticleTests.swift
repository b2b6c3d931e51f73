import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of the article "WebSockets" (`MockNetworkServer.docc/WebSockets.md`), run against a
/// client on a bare socket; `ServingArticleTests` checks each snippet is code of this file.
final class WebSocketsArticleTests: XCTestCase {
    func testTheOverviewsEchoAndRefusal() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages {
                await socket.send(.text("echo: \(message.text ?? "")"))
            }
        }
        let origin = "https://api.example.com"
        let server = try MockServer(serving: mocks, as: [origin])
        defer { server.stop() }

        // The client opens ws://127.0.0.1:<port>/chat.
        let url = URL(string: "ws://127.0.0.1:\(server.port)/chat")!

        mocks.register(
            .url("wss://api.example.com/chat")
                .header("Authorization", "Bearer expired")
        ) { _ in .text("token expired", status: 401) }

        try await withWatchdog(20) {
            try await offThread {
                let client = try RawWebSocketClient(port: url.port ?? 0, path: url.path)
                defer { client.close() }
                XCTAssertEqual(try client.readHandshake().status, 101)
                client.sendText("hi")
                XCTAssertEqual(try client.readFrame().text, "echo: hi")
                client.sendClose(1000)
                XCTAssertEqual(try client.readFrame().closeCode, 1000)
                let refused = try RawWebSocketClient(
                    port: server.port, path: "/chat", fields: ["Authorization": "Bearer expired"])
                defer { refused.close() }
                XCTAssertEqual(try refused.readHandshake().status, 401)
            }
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testTheScriptedSocket() async throws {
        let mocks = MockRegistry()
        mocks.webSocket(
            "wss://api.example.com/prices", onOpen: ["ready"],
            replies: ["subscribe": ["42.0", "42.5"]])
        try await withSocket(mocks, path: "/prices") { client, _ in
            XCTAssertEqual(try client.readFrame().text, "ready")
            client.sendText("subscribe")
            XCTAssertEqual(try [client.readFrame().text, client.readFrame().text], ["42.0", "42.5"])
            client.sendClose(1000)
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testTheTestAtTheOtherEnd() async throws {
        let mocks = MockRegistry()
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            // The app's side, beside the test: registered first so its handshake finds a handler
            // (the article's line below registers the same socket again, which replaces it).
            mocks.webSocket("wss://api.example.com/game")
            let appSide = Task {
                try await offThread {
                    let app = try RawWebSocketClient(port: server.port, path: "/game")
                    defer { app.close() }
                    XCTAssertEqual(try app.readHandshake().status, 101)
                    XCTAssertEqual(try app.readFrame().text, "your turn")
                    app.sendText("e2e4")
                    XCTAssertEqual(try app.readFrame().closeCode, 1000)
                    app.sendClose(1000)
                }
            }
            mocks.webSocket("wss://api.example.com/game")
            // … the app under test opens the socket …
            let socket = try await mocks.nextWebSocket()
            await socket.send("your turn")
            let (move, _) = try await mocks.nextWebSocketMessage()
            XCTAssertEqual(move, "e2e4")
            await socket.close(.normal, reason: "game over")
            try await appSide.value
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }
}
