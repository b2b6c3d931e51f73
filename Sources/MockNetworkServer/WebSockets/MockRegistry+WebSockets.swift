import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// WebSockets on a registry: registered for the URL the client believes it opens, matched with the
/// same rules as HTTP handlers, answered over a real socket by the registry's ``MockServer``.
extension MockRegistry {
    /// Answers the WebSockets `match` describes with `handler`, which gets each socket once the
    /// server accepted it: it reads the client's messages (``MockWebSocket/messages``), sends, pings
    /// and closes. The socket closes with 1000 when the handler returns, and with 1011 when it
    /// throws, which fails the test here.
    ///
    /// ```swift
    /// mocks.webSocket("wss://api.example.com/chat") { socket in
    ///     for try await message in socket.messages {
    ///         await socket.send(message)
    ///     }
    /// }
    /// ```
    ///
    /// The match is a `RequestMatch` as for HTTP (a template, `.header(…)` on the handshake's
    /// fields); its scheme is `ws` or `wss`, as the client's URL. A more specific HTTP handler for
    /// the same URL answers the handshake instead, which refuses it: `.status(401)` is a socket
    /// the server would not open.
    ///
    /// - Parameters:
    ///   - match: the sockets to answer.
    ///   - subprotocols: the subprotocols the handler speaks: the server chooses the first the
    ///     client offers (``MockWebSocket/subprotocol``), or none.
    ///   - handler: what answers each socket, in a task of its own.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ match: any RequestMatchConvertible, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (MockWebSocket) async throws -> Void
    ) -> MockRoute {
        addSocket(
            match.requestMatch, .handler(handler), subprotocols: subprotocols,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Answers the WebSockets `match` describes with a script: `onOpen` is sent when a socket
    /// opens, and each message the client sends is answered with its `replies`. A message the
    /// script has no reply for fails the test here.
    ///
    /// ```swift
    /// mocks.webSocket("wss://api.example.com/prices", onOpen: ["ready"], replies: ["subscribe": ["42.0", "42.5"]])
    /// ```
    ///
    /// - Parameters:
    ///   - match: the sockets to answer.
    ///   - subprotocols: the subprotocols the script speaks (see the handler form of `webSocket(_:subprotocols:_:)`).
    ///   - onOpen: the messages sent as soon as a socket opens, in order.
    ///   - replies: for each message the client may send, the messages sent back, in order.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ match: any RequestMatchConvertible, subprotocols: [String] = [], onOpen: [WebSocketMessage] = [],
        replies: [WebSocketMessage: [WebSocketMessage]],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        addSocket(
            match.requestMatch, .script(SocketRoute.Script(onOpen: onOpen, replies: replies)),
            subprotocols: subprotocols,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Accepts the WebSockets `match` describes and leaves each to the test, which takes it with
    /// `nextWebSocket(timeout:)` and sends, reads and closes when it
    /// chooses.
    ///
    /// - Parameters:
    ///   - match: the sockets to accept.
    ///   - subprotocols: the subprotocols the test speaks (see the handler form of `webSocket(_:subprotocols:_:)`).
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    /// - Returns: the route, whose `callCount` counts the handshakes it answered.
    @discardableResult
    public func webSocket(
        _ match: any RequestMatchConvertible, subprotocols: [String] = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockRoute {
        addSocket(
            match.requestMatch, .test, subprotocols: subprotocols,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Every WebSocket the registry's servers opened, in order, open or closed: each keeps its
    /// handshake and what went each way (``MockWebSocket/events``).
    public var webSockets: [MockWebSocket] {
        WebSocketBook.existing(self)?.sockets ?? []
    }

    /// The next WebSocket a client opens on one of the registry's servers (or the oldest one opened
    /// that this has not returned yet), within `timeout`.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait.
    ///   - fileID: where the call is, for the failure a timeout records; leave the default.
    ///   - filePath: where the call is; leave the default.
    ///   - line: where the call is; leave the default.
    ///   - column: where the call is; leave the default.
    /// - Throws: ``WebSocketError/timedOut(_:)`` when none opens in time (the test fails too, here),
    ///   `CancellationError` when the task is cancelled.
    public func nextWebSocket(
        timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws -> MockWebSocket {
        let seconds = MockWebSocket.seconds(timeout)
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let socket = try await awaited(location) {
            try await WebSocketBook.of(self).opened.next(timeout: seconds) {
                WebSocketError.timedOut("no WebSocket opened within \(seconds) s")
            }
        }
        guard let socket else { throw CancellationError() }
        return socket
    }

    /// The next message a client sends on any of the registry's WebSockets (or the oldest one sent
    /// that this has not returned yet), within `timeout`; and the socket it came on. A message taken
    /// here counts as expected, even when the socket's handler never reads it.
    ///
    /// - Parameters:
    ///   - timeout: how long to wait.
    ///   - fileID: where the call is, for the failure a timeout records; leave the default.
    ///   - filePath: where the call is; leave the default.
    ///   - line: where the call is; leave the default.
    ///   - column: where the call is; leave the default.
    /// - Throws: ``WebSocketError/timedOut(_:)`` when none comes in time (the test fails too, here),
    ///   `CancellationError` when the task is cancelled.
    public func nextWebSocketMessage(
        timeout: Duration = .seconds(5),
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) async throws -> (message: WebSocketMessage, socket: MockWebSocket) {
        let seconds = MockWebSocket.seconds(timeout)
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let next = try await awaited(location) {
            try await WebSocketBook.of(self).messages.next(timeout: seconds) {
                WebSocketError.timedOut("no WebSocket message came within \(seconds) s")
            }
        }
        guard let next else { throw CancellationError() }
        next.socket.seenByTest(next.number)
        return (next.message, next.socket)
    }

    /// Runs `wait`; a timeout fails the test at `location` as well as throwing.
    private func awaited<Value>(_ location: SourceLocation, _ wait: () async throws -> Value) async throws -> Value {
        do {
            return try await wait()
        } catch let error as WebSocketError {
            record(MockFailure(message: error.description, location: location))
            throw error
        }
    }

    private func addSocket(
        _ match: RequestMatch, _ body: SocketRoute.Body, subprotocols: [String], _ location: SourceLocation
    ) -> MockRoute {
        let route = SocketRoute(body: body, subprotocols: subprotocols, location: location, registry: self)
        let book = WebSocketBook.of(self)
        let number = book.add(route)
        let field = WebSocketBook.routeField
        return add(
            match, nil, location,
            [
                .sync { request in
                    guard request.value(forHTTPHeaderField: "Sec-WebSocket-Key") != nil else {
                        throw NotAHandshake(request: request)
                    }
                    let response = HTTPURLResponse(
                        url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                        headerFields: [field: book.handshakeID(route: number)])!
                    return .http(response, Data())
                }
            ], repeatsLast: true, runsUserCode: false)
    }
}

/// A request that is not a WebSocket handshake met a socket's registration.
private struct NotAHandshake: MockInputError {
    let request: URLRequest

    var description: String {
        "MockNetwork: \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") is not a WebSocket handshake, "
            + "and the handler registered here answers only WebSockets: open it with a WebSocket client through "
            + "a MockServer, or register an HTTP handler for it."
    }
}
