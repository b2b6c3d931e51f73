import MockNetwork
import MockNetworkServer

extension EchoServers {
    /// MockNetwork's echo: a registry whose WebSocket handler for `ws://echo.test/echo` sends back
    /// every message it receives, served by a `MockServer` as `http://echo.test`.
    static func mockServer() async throws -> RunningServer {
        let mocks = MockRegistry()
        mocks.webSocket("ws://echo.test/echo") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        let server = try MockServer(serving: mocks, as: ["http://echo.test"])
        return RunningServer(port: server.port, path: "/echo", owner: server)
    }
}
