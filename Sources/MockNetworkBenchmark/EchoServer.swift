import Foundation
import MockNetwork
import MockNetworkServer

/// `MockNetworkBenchmark echo-server SECONDS`: a `MockServer` whose socket handler sends back every
/// message as it came, for a conformance suite on this machine (`scripts/autobahn`, run by CI).
/// It prints the socket's URL on its first line, then serves until `SECONDS` have passed or the
/// process is ended. Messages up to 16 MiB, as Autobahn|Testsuite's largest (9.1.6, 9.2.6).
func serveEcho(seconds: Int) throws -> Never {
    let mocks = MockRegistry()
    mocks.webSocket(.url("ws://echo.test/echo")) { socket in
        for try await message in socket.messages { await socket.send(message) }
    }
    let server = try MockServer(
        serving: mocks, as: ["http://echo.test"],
        limits: HTTPServerLimits(maxWebSockets: 256, maxWebSocketMessageBytes: 16 << 20))
    FileHandle.standardOutput.write(Data("ws://127.0.0.1:\(server.port)/echo\n".utf8))
    Thread.sleep(forTimeInterval: TimeInterval(max(1, seconds)))
    withExtendedLifetime(server) {}
    exit(0)
}
