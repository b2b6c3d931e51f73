import Foundation

/// An HTTP/1.1 server on 127.0.0.1, on a port the system picks, answering with a responder.
///
/// It listens on loopback only, never on another interface. Connections stay open between requests
/// (keep-alive), take pipelined requests and answer them in order, and are bounded by `limits`;
/// `stop()` closes the listener and every connection, and the server stops when it is released.
///
/// A client that ends its side of a connection is taken to have left once the answers given at once
/// are sent: an answer still in progress then is cut short, and its writer's `onClose` runs.
package final class HTTPServer: Sendable {
    /// The port it listens on.
    package let port: Int
    /// `http://127.0.0.1:<port>`.
    package let baseURL: URL
    /// What it takes from its clients.
    package let limits: HTTPServerLimits
    private let listener: Listener
    private let connections: ConnectionTable

    /// Starts listening on a free port of 127.0.0.1, answering every request with `responder`.
    ///
    /// - Parameter failingBind: an `errno` for `bind` to fail with, instead of binding (MockNetwork's
    ///   tests: the `EPERM` of a sandboxed macOS process).
    package init(
        limits: HTTPServerLimits = HTTPServerLimits(), responder: any HTTPResponder, failingBind: Int32? = nil
    ) throws {
        let connections = ConnectionTable()
        listener = try Listener(backlog: 128, failingBind: failingBind) { fd, peer in
            let connection = Connection(
                fd: fd, peer: peer, limits: limits, responder: responder, table: connections)
            if connections.admit(connection, limit: limits.maxConnections) {
                connection.start()
            } else {
                Socket.sendIfPossible(fd, HTTPServer.refusal)
                Socket.closeDescriptor(fd)
            }
        }
        self.connections = connections
        self.limits = limits
        port = listener.port
        baseURL = URL(string: "http://127.0.0.1:\(listener.port)")!
    }

    /// Starts listening on a free port of 127.0.0.1, answering every request with `respond`.
    package convenience init(
        limits: HTTPServerLimits = HTTPServerLimits(),
        respond: @escaping @Sendable (HTTPServerRequest, HTTPResponseWriter) -> Void
    ) throws {
        try self.init(limits: limits, responder: ClosureResponder(respond))
    }

    deinit { stop() }

    /// Stops listening (the port is closed when this returns) and closes every connection, cutting
    /// short the answers in progress. With `grace`, a connection whose answer is in progress waits up
    /// to that long (without blocking the caller) for its client to hang up first, and its writer's
    /// ``HTTPResponseWriter/progress`` then says which it was. Only the first call does anything.
    package func stop(grace: TimeInterval = 0) {
        listener.stop()
        connections.stop(grace: grace)
    }

    /// The number of connections open now, lingering ones included.
    package var connectionCount: Int { connections.count }

    /// Returns once no connection is open (at once if none is), or when the task is cancelled.
    package func waitUntilNoConnections() async {
        await connections.waitUntilEmpty()
    }

    /// What a connection past the limit gets before it is closed.
    private static let refusal = ResponseEncoding.failure(
        RequestFailure(status: 503, reason: "the server has as many connections open as it takes"))
}
