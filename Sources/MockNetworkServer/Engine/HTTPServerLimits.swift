import Foundation

/// How much a server takes from its clients before it refuses: what bounds its memory and its
/// connections whatever they send.
public struct HTTPServerLimits: Sendable, Equatable {
    /// The most bytes of a request's head (request line and fields); more is answered with 431
    /// (414 when the request line alone is longer).
    public var maxHeaderBytes: Int
    /// The most bytes of a request's body; a longer one is answered with 413.
    public var maxBodyBytes: Int
    /// The most connections open at once; one more is answered with 503 and closed.
    public var maxConnections: Int
    /// Seconds of silence a connection takes from its client before it closes: time in which the
    /// client sends no byte (of a request's head or body) and, with an answer waiting, reads none. A
    /// request begun and silent that long is answered with 408; one that keeps coming, however
    /// slowly, is never cut off (a long upload is fine). An answer the server is still making does
    /// not count against its client.
    public var idleTimeout: TimeInterval
    /// Seconds a closing connection keeps reading, and dropping, what its client still sends, so the
    /// last answer reaches it before the close (a close with unread bytes would reset the connection).
    public var lingerTimeout: TimeInterval
    /// The most requests read ahead of the one being answered on a connection (pipelining); past
    /// that the server reads nothing more until answers go out.
    public var maxPipelinedRequests: Int
    /// The most WebSockets open at once; a handshake past that is answered with 503.
    public var maxWebSockets: Int
    /// The most bytes of one WebSocket message (and so of one frame); a client that sends more is
    /// closed with 1009 (message too big).
    public var maxWebSocketMessageBytes: Int

    /// The given limits; the defaults suit a test server on loopback.
    public init(
        maxHeaderBytes: Int = 64 * 1024, maxBodyBytes: Int = 64 * 1024 * 1024, maxConnections: Int = 256,
        idleTimeout: TimeInterval = 30, lingerTimeout: TimeInterval = 2, maxPipelinedRequests: Int = 16,
        maxWebSockets: Int = 128, maxWebSocketMessageBytes: Int = 16 * 1024 * 1024
    ) {
        self.maxHeaderBytes = max(maxHeaderBytes, 256)
        self.maxBodyBytes = max(maxBodyBytes, 0)
        self.maxConnections = max(maxConnections, 1)
        self.idleTimeout = idleTimeout.isFinite ? max(idleTimeout, 0.01) : 30
        self.lingerTimeout = lingerTimeout.isFinite ? max(lingerTimeout, 0) : 2
        self.maxPipelinedRequests = max(maxPipelinedRequests, 1)
        self.maxWebSockets = max(maxWebSockets, 0)
        self.maxWebSocketMessageBytes = max(maxWebSocketMessageBytes, 125)
    }

    /// Bytes of answers waiting to be sent on a connection below which it takes its next request.
    static let outboundLowWater = 64 * 1024
    /// Bytes read from a socket at most per readiness event, so one busy client cannot hold its thread.
    static let readBatchBytes = 256 * 1024
}
