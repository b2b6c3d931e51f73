import Foundation
import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import Testing

/// Sockets under the `.mockNetwork` trait: their handlers run in the test's task tree (on their
/// connection's queue), so an `#expect` there is this test's issue and `MockRegistry.current` is
/// its registry, and a socket still open when the test ends is reported as its failure.
@Suite
struct WebSocketTraitTests {
    /// Opens `path` on `server` with a raw client, sends `text`, and gives back the server's answer.
    private func exchange(_ server: MockServer, _ path: String, _ text: String) async throws -> String {
        try await offThread {
            let client = try RawWebSocketClient(port: server.port, path: path)
            defer { client.close() }
            _ = try client.readHandshake()
            client.sendText(text)
            let answer = try client.readFrame().text
            client.sendClose(1000)
            _ = try client.readFrame()
            return answer
        }
    }

    @Test(.mockNetwork, .timeLimit(.minutes(1))) func aSocketHandlerSeesTheTestsRegistry() async throws {
        let mocks = MockRegistry.current
        mocks.webSocket("wss://api.example.com/chat") { socket in
            let message = try await socket.receive()
            #expect(message == "hello")  // before the answer: the test may end once it has it
            await socket.send(.text(MockRegistry.current === mocks ? "same registry" : "another"))
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        #expect(try await exchange(server, "/chat", "hello") == "same registry")
    }

    @Test(.timeLimit(.minutes(1))) func anExpectationInsideASocketHandlerFailsThisTest() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.webSocket("wss://api.example.com/chat") { socket in
                    let message = try await socket.receive()
                    #expect(message == "subscribe", "the client subscribes first")
                    await socket.send("ok")
                }
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                _ = try await exchange(server, "/chat", "hello")
            }
        } matching: { issue in
            issue.comments.map(\.rawValue) == ["the client subscribes first"]
        }
    }

    @Test(.timeLimit(.minutes(1))) func aSocketStillOpenWhenTheTestEndsFailsIt() async throws {
        let test = try #require(Test.current)
        let client = Shared<RawWebSocketClient?>(nil)
        defer { client.current?.close() }
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.webSocket("wss://api.example.com/chat")
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                let opened = try RawWebSocketClient(port: server.port, path: "/chat")
                client.update { $0 = opened }
                _ = try await offThread { try opened.readHandshake() }
                _ = try await mocks.nextWebSocket()
            }
        } matching: { issue in
            issue.description.contains("was still open when the test ended")
        }
    }
}
