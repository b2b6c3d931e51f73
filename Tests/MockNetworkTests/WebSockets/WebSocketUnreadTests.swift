import Foundation
import MockNetwork
import MockNetworkServer
import Testing

/// The client's messages that nothing read fail the test at its end, not at the socket's close: a test
/// may read the client's last message after the client closed (it was failed in 3 of 5 runs for a
/// read that came a moment after the close).
@Suite struct WebSocketUnreadTests {
    /// The client sends "subscribe" and closes; the test waits until the socket closed, then reads the
    /// message with `nextWebSocketMessage`: the end of the test finds nothing unread, every time.
    @Test(arguments: 0..<5) func aReadAfterTheClientClosedCounts(_ round: Int) async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/feed")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let port = server.port
        try await withWatchdog(30) {
            let client = try RawWebSocketClient(port: port, path: "/feed")
            defer { client.close() }
            _ = try await onOwnThread { Result { try client.readHandshake() } }.get()
            let socket = try await mocks.nextWebSocket()
            client.sendText("subscribe")
            client.sendClose(1000)
            try await socket.awaitClosed(timeout: .seconds(10))
            let (message, _) = try await mocks.nextWebSocketMessage()
            #expect(message == "subscribe")
        }
        let failures = await mocks.awaitSettledFailures()
        #expect(failures.isEmpty, "round \(round): \(failures.map(\.message))")
    }

    /// A message nothing read at all fails the test when it ends, naming it.
    @Test func aMessageNothingReadFailsAtTheEndOfTheTest() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/feed")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let port = server.port
        try await withWatchdog(30) {
            let client = try RawWebSocketClient(port: port, path: "/feed")
            defer { client.close() }
            _ = try await onOwnThread { Result { try client.readHandshake() } }.get()
            let socket = try await mocks.nextWebSocket()
            client.sendText("subscribe")
            client.sendClose(1000)
            try await socket.awaitClosed(timeout: .seconds(10))
        }
        #expect(mocks.failures.isEmpty, "failed before the end of the test: \(mocks.failures.map(\.message))")
        let failures = await mocks.awaitSettledFailures().map(\.message)
        #expect(
            failures == [
                "MockNetwork: the client sent 1 message on wss://api.example.com/feed that nothing read before the "
                    + "test ended: \"subscribe\". Read them in the handler (socket.messages, socket.receive()), or "
                    + "await them in the test (nextWebSocketMessage)."
            ])
    }
}
