import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's end of one WebSocket a client opened on a ``MockServer``: what a handler (or the
/// test) reads the client's messages from, and sends, pings and closes with.
///
/// ```swift
/// mocks.webSocket("wss://api.example.com/chat") { socket in
///     for try await message in socket.messages {
///         await socket.send(message)  // an echo
///     }
/// }
/// ```
///
/// Every method may be called from any task. After the socket closed, `send`, `ping` and `close`
/// do nothing, and ``messages`` ends. ``events`` keeps what went each way, in order. A timeout of a
/// wait on the client (`receive`, `ping`, `awaitClosed`, and the registry's `nextWebSocket` and
/// `nextWebSocketMessage`) does not count time in which Swift's concurrency pool ran nothing (other
/// tests held its threads), since the client's task could not run then either.
public final class MockWebSocket: Sendable {
    /// The handshake as handlers see it: its URL is the one the client believes it opened
    /// (`wss://api.example.com/chat`), with the `Sec-WebSocket-*` fields it sent.
    public let request: URLRequest
    /// The subprotocol the server chose from those the client offered, if any.
    public let subprotocol: String?

    let session: SocketSession
    let inbox = AsyncQueue<(number: Int, message: WebSocketMessage)>()
    let route: SocketRoute
    let book: WebSocketBook
    let state = Locked(State())

    struct State {
        var events: [WebSocketEvent] = []
        /// When each event happened, in the same order.
        var times: [Date] = []
        /// The bytes of the messages in `events`.
        var eventBytes = 0
        var clientMessages = 0
        /// Client messages a test took with `nextWebSocketMessage`, by number.
        var seenByTest: Set<Int> = []
        var inboxBytes = 0
        var clientClose: (code: WebSocketCloseCode, reason: String)?
        var serverClose: (code: WebSocketCloseCode, reason: String)?
        var open = true
        /// A failure for a socket left open was recorded.
        var reportedOpen = false
        /// A failure for the client's messages nothing read was recorded.
        var reportedUnread = false
        /// The connection's failure (the client broke the protocol), waiting for the handler to read
        /// the messages that came before.
        var pendingFailure: PendingFailure?
        /// Messages put in the handler's inbox, those it took, and those it was done with (it took
        /// them and came back for more).
        var forHandler = 0
        var takenByHandler = 0
        var doneByHandler = 0

        mutating func append(_ event: WebSocketEvent) {
            events.append(event)
            times.append(Date())
            eventBytes += event.messageBytes
            var drop = max(0, events.count - MockWebSocket.eventLimit)
            if drop < MockWebSocket.eventLimit / 10 { drop = 0 }
            // The latest only, dropped in steps: a socket's log stays bounded in events and in bytes,
            // however long it runs and however large its messages (the latest event stays).
            var bytes = eventBytes - events[..<drop].reduce(0) { $0 + $1.messageBytes }
            while bytes > MockWebSocket.eventByteLimit, drop < events.count - 1 {
                bytes -= events[drop].messageBytes
                drop += 1
            }
            guard drop > 0 else { return }
            events.removeFirst(drop)
            times.removeFirst(drop)
            eventBytes = bytes
        }
    }

    /// Bytes of messages waiting for the handler before the server stops reading from the client.
    static let inboxCapacity = 1 << 20
    /// The most events a socket keeps (the latest): a registry's log keeps 10,000 requests too.
    static let eventLimit = 10_000
    /// The most bytes of messages a socket's events keep (the latest, and always the last event).
    static let eventByteLimit = 4 << 20

    /// What names this socket's handshake in the registry's log (the answer's route field).
    let handshakeID: String

    init(
        request: URLRequest, subprotocol: String?, session: SocketSession, route: SocketRoute, book: WebSocketBook,
        handshakeID: String
    ) {
        self.handshakeID = handshakeID
        self.request = request
        self.subprotocol = subprotocol
        self.session = session
        self.route = route
        self.book = book
    }

    /// The URL the client opened, as the handlers see it.
    public var url: URL { request.url ?? URL(fileURLWithPath: "/") }

    // MARK: Reading

    /// The messages the client sends, in order; the sequence ends when the socket closes. A loop
    /// over it is a handler's usual body. Throws `CancellationError` when the task is cancelled.
    public var messages: WebSocketMessages { WebSocketMessages(socket: self) }

    /// The client's next message, within `timeout` (at once when one waits).
    ///
    /// - Throws: ``WebSocketError/timedOut(_:)`` when none comes in time, ``WebSocketError/closed(_:reason:)``
    ///   when the socket closes first, `CancellationError` when the task is cancelled.
    public func receive(timeout: Duration = .seconds(5)) async throws -> WebSocketMessage {
        let seconds = Self.seconds(timeout)
        let url = self.url
        guard
            let message = try await take(
                timeout: seconds,
                timedOut: {
                    WebSocketError.timedOut("no message came on \(url.absoluteString) within \(seconds) s")
                })
        else {
            let close = state.withLock { $0.clientClose ?? $0.serverClose }
            throw WebSocketError.closed(close?.code ?? .abnormal, reason: close?.reason ?? "")
        }
        return message
    }

    /// The next message for the handler (``messages``, ``receive(timeout:)``).
    func take(timeout: TimeInterval?, timedOut: @escaping @Sendable () -> any Error) async throws -> WebSocketMessage? {
        // Back for more: done with what it took. Once it is done with what came before a frame that broke
        // the protocol (and answered it), the connection fails.
        let caughtUp = state.withLock { state -> Bool in
            state.doneByHandler = state.takenByHandler
            return state.doneByHandler == state.forHandler
        }
        if caughtUp { runPendingFailure() }
        guard let (_, message) = try await inbox.next(timeout: timeout, timedOut: timedOut) else { return nil }
        state.withLock { $0.takenByHandler += 1 }
        taken(message)
        return message
    }

    /// A connection's failure, run once.
    final class PendingFailure: Sendable {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }

    /// Defers `fail` (the client broke the protocol) until the handler has read the messages that
    /// came before, and answered them: at its next read once they are read, or after a second. False,
    /// with nothing deferred, when nothing waits to be read or no handler reads (a script answers at
    /// once; a test reads the messages from the registry).
    func failAfterReads(_ fail: @escaping @Sendable () -> Void) -> Bool {
        guard case .handler = route.body else { return false }
        let deferred = state.withLock { state -> Bool in
            guard state.doneByHandler < state.forHandler else { return false }
            state.pendingFailure = PendingFailure(fail)
            return true
        }
        guard deferred else { return false }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in self?.runPendingFailure() }
        return true
    }

    private func runPendingFailure() {
        let failure = state.withLock { state -> PendingFailure? in
            defer { state.pendingFailure = nil }
            return state.pendingFailure
        }
        failure?.run()
    }

    /// `message` left the inbox: its bytes no longer count, and reading resumes if it had paused.
    func taken(_ message: WebSocketMessage) {
        let resume = state.withLock { state -> Bool in
            let wasFull = state.inboxBytes >= Self.inboxCapacity
            state.inboxBytes -= message.byteCount
            return wasFull && state.inboxBytes < Self.inboxCapacity
        }
        if resume { session.channel.resumeReading() }
    }

    /// Bytes of the client's messages waiting for the handler.
    var unreadBytes: Int { state.withLock { $0.inboxBytes } }

    /// Bytes the server has for the client that the socket has not taken yet.
    var queuedBytes: Int { session.channel.queuedBytes }

    /// Whether the handler's messages leave room to read more from the client.
    var hasRoom: Bool { state.withLock { $0.inboxBytes < Self.inboxCapacity } }

    // MARK: Sending

    /// Sends `message`. Waits first while the client is behind (has not taken what was sent), so
    /// a slow reader slows the sender instead of filling the server's memory.
    public func send(_ message: WebSocketMessage) async {
        guard isOpen else { return }
        note(.sent(message))
        await session.send(WebSocketFrames.frame(for: message))
    }

    /// Sends `messages` in order, `interval` apart (the first after `interval`): a feed on a
    /// schedule. Returns when the last was sent, or when the socket closed or the task was cancelled.
    public func send(_ messages: [WebSocketMessage], every interval: Duration) async {
        for message in messages {
            do { try await Task.sleep(for: interval) } catch { return }
            guard isOpen else { return }
            await send(message)
        }
    }

    /// Sends a ping, and returns when the client's pong comes (or the socket closes first).
    ///
    /// A client that answers no ping (its library leaves pongs to the app, or it is stuck) makes
    /// this throw at `timeout`, not wait forever: a test of a client's keep-alive pings, then awaits
    /// `awaitClosed(timeout:)` for the client that gave up, or asserts the pong came.
    ///
    /// - Throws: ``WebSocketError/timedOut(_:)`` when no pong came within `timeout`.
    public func ping(_ payload: Data = Data(), timeout: Duration = .seconds(5)) async throws {
        guard isOpen else { return }
        guard await session.ping(Array(payload), within: Self.seconds(timeout)) else {
            throw WebSocketError.timedOut(
                "no pong to the ping on \(url.absoluteString) within \(Self.seconds(timeout)) s")
        }
    }

    /// Closes the socket with `code` and `reason`: a close frame now, and the connection closed
    /// when the client answers it (or after 2 seconds). Returns once the connection closed.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") async {
        let send = state.withLock { state -> Bool in
            guard state.open, state.serverClose == nil, state.clientClose == nil else { return false }
            state.serverClose = (code, reason)
            state.append(.closed(by: .server, code: code, reason: reason))
            return true
        }
        if send { session.close(code.maySend ? code : .normal, reason: reason) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.onEnd { continuation.resume() }
        }
    }

    /// Returns once the socket's connection closed (whichever end closed it), within `timeout`: a
    /// test awaits a client's close this way, then reads ``closeCode`` and ``events``.
    ///
    /// - Throws: ``WebSocketError/timedOut(_:)`` when it is still open after `timeout`.
    public func awaitClosed(timeout: Duration = .seconds(5)) async throws {
        await session.awaitEnd(within: Self.seconds(timeout))
        if state.withLock({ $0.open }) {
            throw WebSocketError.timedOut(
                "the socket on \(url.absoluteString) was still open after \(Self.seconds(timeout)) s")
        }
    }

    /// Holds what the server sends on this socket from now (`send`, a script's replies) until the
    /// returned hold is released: the client gets nothing meanwhile, then all of it in order.
    /// Pongs and the close handshake are not held.
    public func hold() -> WebSocketHold {
        session.hold()
        return WebSocketHold(session: session)
    }

    /// Drops the connection with no close handshake: the client sees its socket fail. With
    /// `midMessage`, the server first sends the start of that message's frame and never its end,
    /// as a connection lost in the middle of a message.
    public func drop(midMessage message: WebSocketMessage? = nil) {
        let first = state.withLock { state -> Bool in
            guard state.open, state.serverClose == nil else { return false }
            state.serverClose = (.abnormal, "dropped")
            state.append(.closed(by: .server, code: .abnormal, reason: "dropped"))
            return true
        }
        if first { session.drop(midMessage: message) }
    }
}

/// What the server holds back on a socket (``MockWebSocket/hold()``) until it is released.
public struct WebSocketHold: Sendable {
    let session: SocketSession

    /// Sends what was held, in order, and holds nothing more.
    public func release() {
        session.release()
    }
}
