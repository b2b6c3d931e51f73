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
}
