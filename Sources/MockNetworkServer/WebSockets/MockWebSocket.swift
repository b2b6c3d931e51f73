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
/// do nothing, and ``messages`` ends. ``events`` keeps what went each way, in order.
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
    private let state = Locked(State())

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
    private func taken(_ message: WebSocketMessage) {
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
        await session.awaitEnd(until: .now() + Self.seconds(timeout))
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

    // MARK: What happened

    /// What went each way on this socket, in order: the client's messages, the server's, the close.
    public var events: [WebSocketEvent] { state.withLock { $0.events } }

    /// The messages the client sent, in order.
    public var received: [WebSocketMessage] {
        events.compactMap { if case .received(let message) = $0 { message } else { nil } }
    }

    /// The messages the server sent, in order.
    public var sent: [WebSocketMessage] {
        events.compactMap { if case .sent(let message) = $0 { message } else { nil } }
    }

    /// The code of the client's close frame (1005 when it had none), once one came.
    public var closeCode: WebSocketCloseCode? { state.withLock { $0.clientClose?.code } }

    /// The reason of the client's close frame, once one came.
    public var closeReason: String? { state.withLock { $0.clientClose?.reason } }

    /// Whether the socket is open: neither end has closed or dropped it.
    public var isOpen: Bool {
        state.withLock { $0.open && $0.clientClose == nil && $0.serverClose == nil }
    }

    /// The messages each way with their times, as an export of the traffic shows them.
    var switchedMessages: [SwitchedMessage] {
        state.withLock { state in
            zip(state.events, state.times).compactMap { event, time in
                switch event {
                case .received(let message):
                    SwitchedMessage(fromClient: true, time: time, isText: message.text != nil, data: message.data)
                case .sent(let message):
                    SwitchedMessage(fromClient: false, time: time, isText: message.text != nil, data: message.data)
                case .closed: nil
                }
            }
        }
    }

    // MARK: From the session and the server

    /// The server stops: its client has `grace` seconds to close the socket (a close it began just
    /// before is on its way); then a socket still open fails the test (once) and gets a close frame
    /// with 1001 (going away). A socket already closing is left to finish.
    func serverStopping(grace: TimeInterval) {
        guard isOpen else { return }
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
            let send = state.withLock { state -> Bool in
                guard state.open, state.serverClose == nil, state.clientClose == nil else { return false }
                state.serverClose = (.goingAway, "the server stopped")
                state.append(.closed(by: .server, code: .goingAway, reason: "the server stopped"))
                return true
            }
            if send {
                reportOpen()
                session.close(.goingAway, reason: "the server stopped", timeout: 0.1)
            }
        }
    }

    /// Fails the test, once, for a socket its client left open when the test ended or its server
    /// stopped.
    func reportOpen() {
        let first = state.withLock { state -> Bool in
            defer { state.reportedOpen = true }
            return !state.reportedOpen
        }
        guard first else { return }
        route.fail(
            "the WebSocket to \(url.absoluteString) was still open when the test ended (or its server stopped). "
                + "Close it before: in the client (URLSessionWebSocketTask's cancel(with:reason:)), or on the "
                + "server (return from the handler, or socket.close()).")
    }

    /// Whether the socket's connection has closed.
    var hasEnded: Bool { state.withLock { !$0.open } }

    private func note(_ event: WebSocketEvent) {
        state.withLock { $0.append(event) }
    }

    /// A whole message from the client: to the script, or to the handler and the test's awaits.
    func clientSent(_ message: WebSocketMessage) {
        let number = state.withLock { state -> Int in
            state.append(.received(message))
            state.clientMessages += 1
            if route.script == nil { state.inboxBytes += message.byteCount }
            return state.clientMessages
        }
        if let script = route.script {
            book.clientSent(message, number: number, on: self)
            guard let replies = script.replies[message] else {
                route.fail(
                    "the client sent \(message) on \(url.absoluteString), and the script registered here has no "
                        + "reply for it. Add it to replies:, or register a handler that reads every message.")
                return
            }
            for reply in replies { sendAtOnce(reply) }
            return
        }
        // In the inbox first: a test that takes it from the book at once finds it there.
        state.withLock { $0.forHandler += 1 }
        inbox.append((number, message))
        book.clientSent(message, number: number, on: self)
    }

    /// Sends `message` now, in order with what the connection reads (a script's messages), without
    /// waiting for a slow client: a script's messages are few.
    func sendAtOnce(_ message: WebSocketMessage) {
        guard isOpen else { return }
        note(.sent(message))
        session.sendNow(WebSocketFrames.frame(for: message))
    }

    /// A test took the client's message `number` with `nextWebSocketMessage`. A socket the test
    /// drives (no handler) has it taken from its messages too, so a test that reads with
    /// `nextWebSocketMessage` alone never fills the socket's inbox.
    func seenByTest(_ number: Int) {
        guard case .test = route.body else {
            _ = state.withLock { $0.seenByTest.insert(number) }
            return
        }
        guard let (_, message) = inbox.remove(where: { $0.number == number }) else { return }
        taken(message)
    }

    func clientClosed(_ code: WebSocketCloseCode, reason: String) {
        state.withLock { state in
            state.clientClose = (code, reason)
            state.append(.closed(by: .client, code: code, reason: reason))
        }
    }

    func protocolFailed(_ code: WebSocketCloseCode, reason: String) {
        state.withLock { state in
            if state.serverClose == nil {
                state.serverClose = (code, reason)
                state.append(.closed(by: .server, code: code, reason: reason))
            }
        }
        route.fail(
            "the client broke the WebSocket protocol on \(url.absoluteString): \(reason). The server closed the "
                + "socket with \(code).")
    }

    /// The connection closed: the handler's messages end. What nobody read is told at the end of the
    /// test (``reportUnread()``): a test may still read the client's last messages after the close.
    func connectionEnded() {
        state.withLock { state in
            state.open = false
            if state.clientClose == nil, state.serverClose == nil {
                // Gone with no close frame either way: the client's connection ended (1006).
                state.append(.closed(by: .client, code: .abnormal, reason: ""))
            }
        }
        inbox.finish()
    }

    /// Fails the test, once, for the client's messages that neither the handler nor the test read, on
    /// a socket that has closed: at the end of the test, or when its server stops.
    func reportUnread() {
        guard route.script == nil else { return }
        let unread = state.withLock { state -> [WebSocketMessage] in
            guard !state.open, !state.reportedUnread else { return [] }
            state.reportedUnread = true
            return inbox.waiting.filter { !state.seenByTest.contains($0.number) }.map(\.message)
        }
        guard !unread.isEmpty else { return }
        let shown = unread.prefix(3).map(\.description).joined(separator: ", ")
        route.fail(
            "the client sent \(unread.count) message\(unread.count == 1 ? "" : "s") on \(url.absoluteString) "
                + "that nothing read before the test ended: \(shown)\(unread.count > 3 ? ", …" : ""). Read "
                + "them in the handler (socket.messages, socket.receive()), or await them in the test "
                + "(nextWebSocketMessage).")
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
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

/// One thing that happened on a socket, in ``MockWebSocket/events``.
public enum WebSocketEvent: Sendable, Equatable, CustomStringConvertible {
    /// Which end closed a socket.
    public enum End: Sendable, Equatable {
        /// The client: its close frame, or its leaving with none (code 1006).
        case client
        /// The server: a handler's or the test's close, a drop, or a protocol failure.
        case server
    }

    /// The bytes of the message this event carries (0 for a close).
    var messageBytes: Int {
        switch self {
        case .received(let message), .sent(let message): message.byteCount
        case .closed: 0
        }
    }

    /// The client sent this message.
    case received(WebSocketMessage)
    /// The server sent this message.
    case sent(WebSocketMessage)
    /// The socket was closed by `end`, with this code and reason.
    case closed(by: End, code: WebSocketCloseCode, reason: String)

    /// `→ "hello"` for the client's, `← "hello"` for the server's, `closed by client 1000 (normal)`.
    public var description: String {
        switch self {
        case .received(let message): "→ \(message)"
        case .sent(let message): "← \(message)"
        case .closed(let end, let code, let reason):
            "closed by \(end == .client ? "client" : "server") \(code)\(reason.isEmpty ? "" : " \"\(reason)\"")"
        }
    }
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
