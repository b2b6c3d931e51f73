import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What happened on a socket: what it keeps for the test (``MockWebSocket/events``), and what its
/// session and server tell it (a message, a close, the end of the connection or of the test).
extension MockWebSocket {
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

    func note(_ event: WebSocketEvent) {
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
