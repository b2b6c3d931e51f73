import Dispatch
import Foundation
import MockNetwork

/// The WebSocket protocol on one upgraded connection (RFC 6455): reads the client's frames, answers
/// pings, joins fragments into messages, checks text is UTF-8, runs the close handshake, and fails
/// the connection with the right code when the client breaks the rules. It hands whole messages to
/// its ``MockWebSocket`` and writes what that sends.
final class SocketSession: ConnectionUpgrade {
    /// What changes, in one lock: the parser's, the close handshake's, and what waits.
    struct State {
        /// The message being joined from fragments: its kind and its bytes so far.
        var fragments: (opcode: WebSocketFrames.Opcode, bytes: [UInt8])?
        /// The UTF-8 check of the text message being read, from its first byte on (`nil` between
        /// messages, and for binary ones).
        var text: UTF8Check.Stream?
        /// How many payload bytes of the frame still arriving at the front went through `text`.
        var checkedOfPartialFrame = 0
        /// The connection is being failed: nothing more is read.
        var failing = false
        /// A close frame went to the client.
        var closeSent = false
        /// The connection closed.
        var ended = false
        /// Frames the test holds back (``MockWebSocket/hold()``), in order; `nil` when nothing is held.
        var held: [[UInt8]]?
        /// What runs when the connection closes.
        var onEnd: [@Sendable () -> Void] = []
        /// What waits for a pong.
        var pongWaiters: [@Sendable () -> Void] = []
    }

    let channel: UpgradedChannel
    let maxMessageBytes: Int
    let state = Locked(State())
    /// Set once, before the first byte is read: the socket that takes the messages.
    private let socketBox = Locked<MockWebSocket?>(nil)
    /// What runs once the connection switched (the handler's start), set before it does.
    let onSwitch = Locked<(@Sendable () -> Void)?>(nil)

    init(channel: UpgradedChannel, maxMessageBytes: Int) {
        self.channel = channel
        self.maxMessageBytes = maxMessageBytes
    }

    /// The socket messages go to; set before the connection switches protocols.
    var socket: MockWebSocket? {
        get { socketBox.withLock { $0 } }
        set { socketBox.withLock { $0 = newValue } }
    }

    func switched() {
        let start = onSwitch.withLock { start in
            defer { start = nil }
            return start
        }
        start?()
    }

    // MARK: Reading

    func received(_ bytes: inout ByteQueue, ended: Bool) -> Bool {
        if state.withLock({ $0.failing }) {
            bytes.removeAll()
            return true
        }
        while true {
            switch WebSocketFrames.read(&bytes, maxPayload: maxMessageBytes) {
            case .needMore:
                if !checkPartialText(bytes) {
                    bytes.removeAll()
                    return true
                }
                if ended { clientLeft() }
                return socket?.hasRoom ?? true
            case .failure(let code, let reason):
                bytes.removeAll()
                fail(code, reason)
                return true
            case .frame(let frame):
                guard handle(frame) else {
                    bytes.removeAll()
                    return true
                }
                // The handler is behind: the rest waits unread, and so does the client.
                if socket?.hasRoom == false { return false }
            }
        }
    }

    /// Checks the text of the frame still arriving at the front of `bytes` as far as it has come, so
    /// that invalid UTF-8 fails the connection at the byte that makes it so, not when the message
    /// ends (RFC 6455, 8.1); false when it failed the connection.
    private func checkPartialText(_ bytes: ByteQueue) -> Bool {
        guard case .head(let head) = WebSocketFrames.readHead(bytes, maxPayload: maxMessageBytes) else { return true }
        let available = min(bytes.count - head.payloadStart, head.length)
        let valid = state.withLock { state -> Bool in
            let isText =
                head.opcode == .text && state.fragments == nil
                || head.opcode == .continuation && state.fragments?.opcode == .text
            guard isText, available > state.checkedOfPartialFrame else { return true }
            if head.opcode == .text { state.text = state.text ?? UTF8Check.Stream() }
            let fresh = WebSocketFrames.unmasked(bytes, head, from: state.checkedOfPartialFrame, to: available)
            state.checkedOfPartialFrame = available
            return state.text?.feed(fresh) ?? true
        }
        if !valid { fail(.invalidPayload, "a text message that is not UTF-8") }
        return valid
    }

    /// Takes one frame; false when the connection is failed or closing and reads no more.
    private func handle(_ frame: WebSocketFrames.Frame) -> Bool {
        switch frame.opcode {
        case .ping:
            sendNow(WebSocketFrames.frame(.pong, frame.payload), evenIfHeld: true)
            return true
        case .pong:
            let waiters = state.withLock { state in
                defer { state.pongWaiters.removeAll() }
                return state.pongWaiters
            }
            for waiter in waiters { waiter() }
            return true
        case .close:
            return closeFrame(frame.payload)
        case .text, .binary, .continuation:
            return dataFrame(frame)
        }
    }

    /// What a data frame does to the message being read, in linear time however many fragments.
    private enum Step {
        case more
        case message(WebSocketFrames.Opcode, [UInt8])
        case failure(WebSocketCloseCode, String)
    }

    /// Takes a frame of a message: a whole one, its first fragment, or a later one.
    private func dataFrame(_ frame: WebSocketFrames.Frame) -> Bool {
        let step = state.withLock { state -> Step in
            // What went through the text check while the frame arrived.
            let checked = state.checkedOfPartialFrame
            state.checkedOfPartialFrame = 0
            var opcode = frame.opcode
            var bytes: [UInt8]
            if frame.opcode == .continuation {
                // Taken out of the state before it grows, so the bytes so far are not copied.
                guard let fragments = state.fragments else {
                    return .failure(.protocolError, "a continuation frame came with no message to continue")
                }
                state.fragments = nil
                (opcode, bytes) = fragments
                guard bytes.count + frame.payload.count <= maxMessageBytes else {
                    state.text = nil
                    return .failure(.messageTooBig, "a message over the limit of \(maxMessageBytes) bytes")
                }
                bytes += frame.payload
            } else {
                guard state.fragments == nil else {
                    return .failure(.protocolError, "a new message began before the fragmented one ended")
                }
                bytes = frame.payload
                if opcode == .text, checked == 0 { state.text = UTF8Check.Stream() }
            }
            if opcode == .text {
                let fresh = checked == 0 ? frame.payload[...] : frame.payload[checked...]
                guard state.text?.feed(fresh) ?? true, !frame.fin || state.text?.isComplete ?? true else {
                    state.text = nil
                    return .failure(.invalidPayload, "a text message that is not UTF-8")
                }
            }
            guard frame.fin else {
                state.fragments = (opcode, bytes)
                return .more
            }
            state.text = nil
            return .message(opcode, bytes)
        }
        switch step {
        case .more:
            return true
        case .failure(let code, let reason):
            fail(code, reason)
            return false
        case .message(let opcode, let bytes):
            socket?.clientSent(opcode == .text ? .text(String(decoding: bytes, as: UTF8.self)) : .data(Data(bytes)))
            return true
        }
    }

    /// The client's close frame: checked, answered when the server has not closed yet, and then the
    /// connection closes.
    private func closeFrame(_ payload: [UInt8]) -> Bool {
        var code = WebSocketCloseCode.noStatus
        var reason = ""
        if payload.count == 1 {
            fail(.protocolError, "a close frame of one byte (a code is two)")
            return false
        }
        if payload.count >= 2 {
            code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            guard code.maySend else {
                fail(.protocolError, "close code \(code.rawValue) may not be sent")
                return false
            }
            guard UTF8Check.isValid(payload[2...]) else {
                fail(.invalidPayload, "a close reason that is not UTF-8")
                return false
            }
            reason = String(decoding: payload[2...], as: UTF8.self)
        }
        // RFC 6455, 5.5.1: the close is answered with the code received (none for none), unless the
        // server's own close went first.
        let echoed = code == .noStatus ? [] : Array(payload[0..<2])
        sendCloseOnce(echoed)
        socket?.clientClosed(code, reason: reason)
        // Both close frames went: the server closes the TCP connection first (RFC 6455, 7.1.1), and
        // the client has nothing more to send that a close could reset.
        channel.cutAfterSending()
        return false
    }

    /// The client ended its side of the connection (or it broke) with no close frame.
    private func clientLeft() {
        channel.close()
    }

    // MARK: Writing

    /// Sends a frame (held back while the test holds the socket, unless `evenIfHeld`); returns the
    /// bytes still waiting to go, `nil` once the connection is closing.
    @discardableResult
    func sendNow(_ frame: [UInt8], evenIfHeld: Bool = false) -> Int? {
        let held = state.withLock { state -> Bool in
            guard !evenIfHeld, state.held != nil else { return false }
            state.held?.append(frame)
            return true
        }
        return held ? 0 : channel.send(frame)
    }

    /// Sends a message's frames, waiting first while the client is behind (the bytes waiting to be
    /// sent are over the low-water mark): a slow reader slows the sender, never the server's memory.
    func send(_ frame: [UInt8]) async {
        // Sent at once while the client keeps up, as it mostly does; else after it drained.
        if let waiting = sendNow(frame, unlessOver: UpgradedChannel.lowWater), waiting < 0 {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                channel.whenDrained { continuation.resume() }
            }
            sendNow(frame)
        }
    }

    /// Sends `frame` unless more than `limit` bytes wait to be sent already: then returns -1 and
    /// sends nothing (held frames always wait, and count as sent).
    private func sendNow(_ frame: [UInt8], unlessOver limit: Int) -> Int? {
        let held = state.withLock { state -> Bool in
            guard state.held != nil else { return false }
            state.held?.append(frame)
            return true
        }
        return held ? 0 : channel.send(frame, unlessOver: limit)
    }

    /// Holds the frames sent from now until ``release()``.
    func hold() {
        state.withLock { state in
            if state.held == nil { state.held = [] }
        }
    }

    /// Sends what was held, in order, and holds nothing more.
    func release() {
        let frames = state.withLock { state -> [[UInt8]] in
            defer { state.held = nil }
            return state.held ?? []
        }
        for frame in frames { channel.send(frame) }
    }

    /// Starts the close handshake: a close frame now, and the connection cut if the client has not
    /// answered within `timeout` seconds.
    func close(_ code: WebSocketCloseCode, reason: String, timeout: TimeInterval = 2) {
        guard !state.withLock({ $0.ended }),
            sendCloseOnce(WebSocketFrames.closePayload(code, reason: reason))
        else { return }
        let channel = channel
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { channel.cut() }
    }

    /// Fails the connection (RFC 6455, 7.1.7): a close frame with `code`, then the close, reading
    /// nothing more. The test fails saying what the client sent. Frames are handled in the order they
    /// came: a handler still reading messages that came before gets them first (and its answers go
    /// out before the close), as long as it reads within a second.
    private func fail(_ code: WebSocketCloseCode, _ reason: String) {
        state.withLock {
            $0.failing = true
            $0.fragments = nil
            $0.text = nil
        }
        let failNow: @Sendable () -> Void = { [self] in
            sendCloseOnce(WebSocketFrames.closePayload(code, reason: reason))
            socket?.protocolFailed(code, reason: reason)
            channel.close()
        }
        guard let socket, socket.failAfterReads(failNow) else { return failNow() }
    }

    /// Sends a close frame with `payload` unless one went already; true when this one went. The
    /// frame is written in the same lock that marks it sent: a close on another thread (the
    /// handler's, the reading queue's) then either sends it or finds it already written, never
    /// closes the connection between the two. `also` changes the state in that lock too.
    @discardableResult
    private func sendCloseOnce(_ payload: [UInt8], also: (inout State) -> Void = { _ in }) -> Bool {
        state.withLock { state in
            also(&state)
            guard !state.closeSent else { return false }
            state.closeSent = true
            channel.send(WebSocketFrames.frame(.close, payload))
            return true
        }
    }

    /// Sends a frame's first half with no end, then cuts the connection: a drop mid-message.
    func drop(midMessage message: WebSocketMessage?) {
        if let message {
            let frame = WebSocketFrames.frame(for: message)
            // The head and at most half the payload: the client sees a frame it can never finish.
            let payload = message.data.count
            channel.send(Array(frame.prefix(frame.count - payload + payload / 2)))
        }
        state.withLock { $0.closeSent = true }
        channel.cutAfterSending()
    }

    /// Pings, and returns `true` when the pong comes or the connection closes, `false` when
    /// neither happened within `seconds`; holds no thread.
    func ping(_ payload: [UInt8], within seconds: Double) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let waiting = Locked<CheckedContinuation<Bool, Never>?>(continuation)
            let resume = { @Sendable (answered: Bool) in
                waiting.withLock { waiting in
                    defer { waiting = nil }
                    return waiting
                }?.resume(returning: answered)
            }
            let now = state.withLock { state -> Bool in
                guard !state.ended else { return true }
                state.pongWaiters.append { resume(true) }
                return false
            }
            if now {
                resume(true)
            } else {
                sendNow(WebSocketFrames.frame(.ping, payload.prefix(125)), evenIfHeld: true)
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resume(false) }
            }
        }
    }

    /// Runs `body` when the connection closes (at once if it has).
    func onEnd(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.ended else { return true }
            state.onEnd.append(body)
            return false
        }
        if now { body() }
    }

    /// Returns once the connection closed, or at `deadline`; holds no thread.
    func awaitEnd(until deadline: DispatchTime) async {
        let once = Locked(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resume: @Sendable () -> Void = {
                guard
                    once.withLock({ done in
                        defer { done = true }; return !done
                    })
                else { return }
                continuation.resume()
            }
            onEnd(resume)
            DispatchQueue.global().asyncAfter(deadline: deadline, execute: resume)
        }
    }

    /// As ``awaitEnd(until:)``, blocking the calling thread (never one of the concurrency pool's).
    func waitForEnd(until deadline: DispatchTime) {
        let ended = DispatchSemaphore(value: 0)
        onEnd { ended.signal() }
        _ = ended.wait(timeout: deadline)
    }

    func connectionClosed() {
        let (ends, pongs) = state.withLock { state in
            state.ended = true
            defer {
                state.onEnd.removeAll()
                state.pongWaiters.removeAll()
                state.held = nil
            }
            return (state.onEnd, state.pongWaiters)
        }
        socket?.connectionEnded()
        for pong in pongs { pong() }
        for end in ends { end() }
    }
}
