import Foundation
import MockNetwork

/// The socket registrations with a URL held in a value: `webSocket(feedURL) { … }` for a `String` or
/// `URL` constant works as a literal does. Each is the `RequestMatch` form with `.url(_:)` of the value:
///
/// ```swift
/// let feedURL = URL(string: "wss://feed.example.com/prices")!
/// mocks.webSocket(feedURL) { socket in
///     for try await message in socket.messages { await socket.send(message) }
/// }
/// ```
extension MockRegistry {
    /// Answers the WebSockets opened on `url` with `handler`, as the `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it (`ws` or `wss`).
    ///   - subprotocols: the subprotocols the handler speaks.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    ///   - handler: what answers each socket, in a task of its own.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: URL, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (MockWebSocket) async throws -> Void
    ) -> MockRoute {
        webSocket(
            .url(url), subprotocols: subprotocols, fileID: fileID, filePath: filePath, line: line, column: column,
            handler)
    }

    /// Answers the WebSockets opened on `url`, a URL in a `String`, with `handler`, as the
    /// `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it (`ws` or `wss`).
    ///   - subprotocols: the subprotocols the handler speaks.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    ///   - handler: what answers each socket, in a task of its own.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: String, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (MockWebSocket) async throws -> Void
    ) -> MockRoute {
        webSocket(
            .url(url), subprotocols: subprotocols, fileID: fileID, filePath: filePath, line: line, column: column,
            handler)
    }

    /// Answers the WebSockets opened on `url` with a script, as the `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it.
    ///   - subprotocols: the subprotocols the script speaks.
    ///   - onOpen: the messages sent as soon as a socket opens, in order.
    ///   - replies: for each message the client may send, the messages sent back, in order.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: URL, subprotocols: [String] = [], onOpen: [WebSocketMessage] = [],
        replies: [WebSocketMessage: [WebSocketMessage]],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        webSocket(
            .url(url), subprotocols: subprotocols, onOpen: onOpen, replies: replies, fileID: fileID,
            filePath: filePath, line: line, column: column)
    }

    /// Answers the WebSockets opened on `url`, a URL in a `String`, with a script, as the
    /// `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it.
    ///   - subprotocols: the subprotocols the script speaks.
    ///   - onOpen: the messages sent as soon as a socket opens, in order.
    ///   - replies: for each message the client may send, the messages sent back, in order.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: String, subprotocols: [String] = [], onOpen: [WebSocketMessage] = [],
        replies: [WebSocketMessage: [WebSocketMessage]],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        webSocket(
            .url(url), subprotocols: subprotocols, onOpen: onOpen, replies: replies, fileID: fileID,
            filePath: filePath, line: line, column: column)
    }

    /// Accepts the WebSockets opened on `url` and leaves each to the test (`nextWebSocket()`), as the
    /// `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it.
    ///   - subprotocols: the subprotocols the test speaks.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: URL, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        webSocket(.url(url), subprotocols: subprotocols, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Accepts the WebSockets opened on `url`, a URL in a `String`, and leaves each to the test
    /// (`nextWebSocket()`), as the `RequestMatch` form with `.url(url)`.
    ///
    /// - Parameters:
    ///   - url: the socket's URL, as the client opens it.
    ///   - subprotocols: the subprotocols the test speaks.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ url: String, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        webSocket(.url(url), subprotocols: subprotocols, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
