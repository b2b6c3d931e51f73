import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `URLSessionWebSocketTask`, as an app drives it, against a served registry's sockets.
///
/// On Linux, swift-corelibs-foundation's task runs on libcurl's WebSocket support, which libcurl
/// builds only from 8.11 (or with `--enable-websockets`): with an older libcurl (this project's
/// Debian 12 machine has 7.88.1) the first call fails with `NSURLErrorUnsupportedURL` (-1002,
/// "WebSockets not supported by libcurl"), and these tests are skipped saying so. On Apple
/// platforms they run whole.
final class URLSessionWebSocketTests: XCTestCase {
    /// Runs `body` with a task opened on the server's `path`, skipping where the platform's
    /// Foundation has no WebSockets.
    private func withTask(
        _ server: MockServer, _ path: String, protocols: [String] = [],
        _ body: @escaping @Sendable (URLSessionWebSocketTask) async throws -> Void
    ) async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "ws://127.0.0.1:\(server.port)\(path)")!
        let task = session.webSocketTask(with: url, protocols: protocols)
        task.resume()
        do {
            try await withWatchdog(20) { try await body(task) }
        } catch let error as URLError where error.code == .unsupportedURL {
            throw XCTSkip("this platform's URLSessionWebSocketTask cannot open a socket: \(error.localizedDescription)")
        }
    }

    func testTheTaskSendsAndReceivesTextAndDataAndItsCloseReachesTheHandler() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withTask(server, "/chat") { task in
            try await task.send(.string("hello"))
            guard case .string(let text) = try await task.receive() else { return XCTFail("not text") }
            XCTAssertEqual(text, "hello")
            try await task.send(.data(Data([1, 2, 3])))
            guard case .data(let data) = try await task.receive() else { return XCTFail("not data") }
            XCTAssertEqual(data, Data([1, 2, 3]))
            task.cancel(with: .goingAway, reason: Data("done".utf8))
        }
        let socket = try await mocks.nextWebSocket()
        try await socket.awaitClosed()
        XCTAssertEqual(socket.received, ["hello", .data(Data([1, 2, 3]))])
        XCTAssertEqual(socket.closeCode, .goingAway)
        XCTAssertEqual(socket.closeReason, "done")
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testTheServersCloseAndSubprotocolReachTheTask() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat", subprotocols: ["chat.v2"]) { socket in
            await socket.send("welcome")
            await socket.close(WebSocketCloseCode(rawValue: 4001), reason: "kicked")
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withTask(server, "/chat", protocols: ["chat.v2"]) { task in
            guard case .string(let text) = try await task.receive() else { return XCTFail("not text") }
            XCTAssertEqual(text, "welcome")
            XCTAssertEqual(task.response.flatMap { ($0 as? HTTPURLResponse)?.statusCode }, 101)
            do {
                _ = try await task.receive()
                XCTFail("the server closed")
            } catch {}
            XCTAssertEqual(task.closeCode.rawValue, 4001)
            XCTAssertEqual(task.closeReason, Data("kicked".utf8))
        }
        XCTAssertEqual(mocks.webSockets.first?.subprotocol, "chat.v2")
    }
}
