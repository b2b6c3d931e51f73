import Foundation
import MockNetwork

// What tests write first, taken as they write it: plain text to send, seconds as numbers, and the
// `ws://` URL of a path on the server.

extension MockWebSocket {
    /// Sends `text` as a text message: `send("ready")` or `send(someString)`.
    public func send(_ text: String) async {
        await send(.text(text))
    }

    /// The client's next message, within `seconds`: `receive(timeout: 5)`, as the `Duration` form.
    public func receive(timeout seconds: TimeInterval) async throws -> WebSocketMessage {
        try await receive(timeout: .seconds(seconds))
    }

    /// Returns once the client closed the socket, within `seconds`: `awaitClosed(timeout: 5)`.
    public func awaitClosed(timeout seconds: TimeInterval) async throws {
        try await awaitClosed(timeout: .seconds(seconds))
    }

    /// Sends a ping and returns when the client's pong comes, within `seconds`: `ping(timeout: 2)`.
    public func ping(_ payload: Data = Data(), timeout seconds: TimeInterval) async throws {
        try await ping(payload, timeout: .seconds(seconds))
    }
}

extension MockRegistry {
    /// The next socket a client opens, within `seconds`: `nextWebSocket(timeout: 5)`.
    public func nextWebSocket(
        timeout seconds: TimeInterval,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws -> MockWebSocket {
        try await nextWebSocket(
            timeout: .seconds(seconds), fileID: fileID, filePath: filePath,
            line: line, column: column)
    }

    /// The next message a client sends on any of the registry's sockets, within `seconds`:
    /// `nextWebSocketMessage(timeout: 5)`.
    public func nextWebSocketMessage(
        timeout seconds: TimeInterval,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws -> (message: WebSocketMessage, socket: MockWebSocket) {
        try await nextWebSocketMessage(
            timeout: .seconds(seconds), fileID: fileID, filePath: filePath,
            line: line, column: column)
    }
}

extension MockServer {
    /// The `ws://` URL of `path` on this server, for a client to open a socket on:
    /// `server.webSocketURL("/chat")` is `ws://127.0.0.1:<port>/chat`.
    public func webSocketURL(_ path: String) -> URL {
        let http = url(path)
        guard var components = URLComponents(url: http, resolvingAgainstBaseURL: false) else { return http }
        components.scheme = "ws"
        return components.url ?? http
    }
}

extension MockWebSocket {
    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
