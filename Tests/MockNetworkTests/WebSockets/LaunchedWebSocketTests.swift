import Foundation
import MockNetwork
import MockNetworkApp
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An app under a UI test opens its socket with `MockRegistry.webSocketRequest(url)`: launched with
/// the test's server in its environment, the socket reaches the test's handlers for `url`;
/// launched without, the request is the URL's own.
final class LaunchedWebSocketTests: XCTestCase {
    func testTheAppsSocketReachesTheTestsHandlerForItsOwnURL() async throws {
        let mocks = MockRegistry()
        let seen = Shared<URL?>(nil)
        mocks.webSocket("wss://api.example.com/chat") { socket in
            seen.update { $0 = socket.url }
            for try await message in socket.messages { await socket.send(.text("test says: \(message.text ?? "")")) }
        }
        let server = try MockServer(serving: mocks)  // a UI test's server: no origin
        defer { server.stop() }
        // The app's side, with the launch environment the UI test gave it.
        let request = MockRegistry.webSocketRequest(
            URL(string: "wss://api.example.com/chat")!, environment: server.launchEnvironment)
        XCTAssertEqual(request.url?.absoluteString, "ws://127.0.0.1:\(server.port)/chat")
        try await withWatchdog(30) {
            try await offThread {
                let client = try RawWebSocketClient(
                    port: server.port, path: request.url?.path ?? "/", fields: request.allHTTPHeaderFields ?? [:])
                defer { client.close() }
                XCTAssertEqual(try client.readHandshake().status, 101)
                client.sendText("hi")
                XCTAssertEqual(try client.readFrame().text, "test says: hi")
                client.sendClose(1000)
                XCTAssertEqual(try client.readFrame().closeCode, 1000)
            }
        }
        XCTAssertEqual(seen.current?.absoluteString, "wss://api.example.com/chat")
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testWithoutTheLaunchEnvironmentTheRequestIsTheURLsOwn() {
        let url = URL(string: "wss://api.example.com/chat")!
        let request = MockRegistry.webSocketRequest(url, environment: [:])
        XCTAssertEqual(request.url, url)
        XCTAssertEqual(request.allHTTPHeaderFields ?? [:], [:])
    }

    func testASocketForwardedWithAnotherServersSecretIsRefused() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { _ in XCTFail("no handler runs") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        var environment = server.launchEnvironment
        environment["MOCKNETWORK_SERVER_SECRET"] = String(repeating: "0", count: 64)
        let request = MockRegistry.webSocketRequest(
            URL(string: "wss://api.example.com/chat")!, environment: environment)
        try await withWatchdog(30) {
            try await offThread {
                let client = try RawWebSocketClient(
                    port: server.port, path: "/chat", fields: request.allHTTPHeaderFields ?? [:])
                defer { client.close() }
                XCTAssertEqual(try client.readHandshake().status, 403)
            }
        }
        XCTAssertTrue(mocks.takeFailures().first?.message.contains("a secret that is not this server's") == true)
    }
}
