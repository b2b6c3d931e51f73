import Dispatch
import Foundation
import MockNetwork

/// What the server sends on a socket: frames now or in turn, holds, closes, drops and pings, and
/// the end of the connection.
extension SocketSession {
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
    func fail(_ code: WebSocketCloseCode, _ reason: String) {
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
    func sendCloseOnce(_ payload: [UInt8], also: (inout State) -> Void = { _ in }) -> Bool {
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
        // Time in which the concurrency pool ran nothing (the client's task could not answer either)
        // does not count.
        let clock = PoolClock()
        defer { clock.stop() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
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
                clock.expire(start: .now(), timeout: seconds) { resume(false) }
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
        await awaitEnd { ended in DispatchQueue.global().asyncAfter(deadline: deadline, execute: ended) }
    }

    /// Returns once the connection closed, or once `seconds` passed in which the concurrency pool ran
    /// what it was given (``PoolClock``: the client's task could not close it meanwhile either).
    func awaitEnd(within seconds: TimeInterval) async {
        let clock = PoolClock()
        await awaitEnd { ended in clock.expire(start: .now(), timeout: seconds, ended) }
        clock.stop()
    }

    /// Returns once the connection closed, or once what `arm` arms calls back; holds no thread.
    private func awaitEnd(_ arm: (@escaping @Sendable () -> Void) -> Void) async {
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
            arm(resume)
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
