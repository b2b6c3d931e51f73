/// The messages a client sends on a socket, as an async sequence (``MockWebSocket/messages``).
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// A message the client sent.
    public typealias Element = WebSocketMessage
    let socket: MockWebSocket

    /// Takes the messages in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: MockWebSocket

        /// The next message, or `nil` once the socket closed and all were read.
        public mutating func next() async throws -> WebSocketMessage? {
            try await socket.take(timeout: nil) { CancellationError() }
        }
    }

    /// An iterator over the messages.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
}

/// Why waiting on a socket ended without what was awaited.
public enum WebSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing came within the timeout; says what was awaited.
    case timedOut(String)
    /// The socket closed first, with this code and reason.
    case closed(WebSocketCloseCode, reason: String)

    /// What happened.
    public var description: String {
        switch self {
        case .timedOut(let what): "MockNetwork: \(what)."
        case .closed(let code, let reason):
            "MockNetwork: the socket closed (\(code)\(reason.isEmpty ? "" : ", \"\(reason)\"")) before a message came."
        }
    }
}
