import Hummingbird
import HummingbirdWebSocket

/// An echo server that is running. Servers are not stopped: the process ends after the table,
/// which ends them (cancelling Hummingbird's would log an error after the table).
struct RunningServer: Sendable {
    /// Its port on 127.0.0.1.
    let port: Int
    /// The WebSocket's path.
    let path: String
    /// What must live as long as the server serves (a `MockServer` stops when released).
    let owner: (any Sendable)?
}

/// The servers compared: each answers every message on `/echo` with the same message.
enum EchoServers {
    /// hummingbird-websocket's echo: a Hummingbird `Application` with a WebSocket route on
    /// `127.0.0.1:0` whose handler writes back every message it reads, text as text, binary as binary.
    static func hummingbird(maxSize: Int = 1 << 20) async throws -> RunningServer {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.ws("/echo") { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: maxSize) {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let bytes): try await outbound.write(.binary(bytes))
                }
            }
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var app = Application(
            router: router,
            // Frames up to `maxSize` too, and text checked as UTF-8 (as MockServer does), so both
            // servers do the same work; no automatic pings, which a conformance suite does not expect.
            server: .http1WebSocketUpgrade(
                webSocketRouter: router,
                configuration: .init(ws: .init(maxFrameSize: maxSize, autoPing: .disabled, validateUTF8: true))),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            }
        )
        app.logger.logLevel = .warning
        let running = Task { [app] in try await app.run() }
        var port = 0
        for await announced in ports {
            port = announced
            break
        }
        guard port > 0 else {
            running.cancel()
            throw RowFailure(description: "Hummingbird did not say which port it listens on")
        }
        return RunningServer(port: port, path: "/echo", owner: running)
    }
}
