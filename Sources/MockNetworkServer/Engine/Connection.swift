import Dispatch
import Foundation
import MockNetwork

/// One client's connection: its socket, its serial queue, and its state.
///
/// The read, write and timer sources fire on its queue and the responder is called there; a writer's
/// calls are applied by the thread that makes them (`WriterMailbox`), which sends what they wrote
/// without a hop to the queue, and hands the queue what is left to do. Both hold the state's lock. The socket
/// is non-blocking; what the client does not take yet waits in `outbound` while a write source
/// watches the socket. The descriptor is closed only after every source on it has been cancelled,
/// and the connection leaves its table then.
final class Connection: Sendable {
    let fd: Int32
    let peer: HTTPPeer
    let queue: DispatchQueue
    let limits: HTTPServerLimits
    let responder: any HTTPResponder
    let table: ConnectionTable
    let state: Locked<ConnectionState>
    /// Writer calls on their way to the queue (a lock of their own: a handler's thread posts while
    /// the queue works on `state`).
    let mailbox = Locked(WriterMailbox())

    init(fd: Int32, peer: HTTPPeer, limits: HTTPServerLimits, responder: any HTTPResponder, table: ConnectionTable) {
        self.fd = fd
        self.peer = peer
        self.limits = limits
        self.responder = responder
        self.table = table
        queue = DispatchQueue(label: "MockNetworkServer.connection.\(peer.port)")
        let parser = RequestParser(maxHeaderBytes: limits.maxHeaderBytes, maxBodyBytes: limits.maxBodyBytes, peer: peer)
        state = Locked(ConnectionState(parser: parser, now: ConnectionState.now))
    }

    /// Starts reading and the idle timer. Called once, after the table took the connection.
    func start() {
        queue.async { [self] in
            state.withLock { state in
                guard state.phase != .closed else { return }  // stopped before it started
                let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
                read.setEventHandler { [weak self] in self?.readable() }
                read.setCancelHandler { [self] in sourceCancelled() }
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.setEventHandler { [weak self] in self?.timerFired() }
                state.readSource = read
                state.timer = timer
                state.sourcesOnDescriptor = 1
                schedule(timer, at: state.lastProgress + nanoseconds(limits.idleTimeout))
                read.activate()
                timer.activate()
            }
        }
    }

    /// Closes the connection from any thread, for the server's stop: reads and writes on the socket
    /// fail at once, and the queue closes the rest.
    ///
    /// With `grace`, a connection whose answer is in progress, and whose client is still there, waits
    /// up to that long for the client to hang up first (one that gave up on its answer may be closing
    /// just then): the answer goes no further, nothing more is answered, and what the client sends is
    /// dropped. Closed at the end of the grace, the answer was cut short by the server.
    func shutDown(grace: TimeInterval = 0) {
        let closesLater = state.withLock { state -> Bool in
            guard !state.stopping, state.phase != .closed else { return true }
            state.stopping = true
            // A switched protocol closes its own connection as the server stops (a WebSocket's close
            // frame, after its client had a moment to close first).
            if state.phase == .upgraded { return true }
            guard let serial = state.answer?.serial, state.phase == .open,
                progress(of: serial, &state) == .writing
            else {
                if state.descriptorOpen { Socket.shutdownBoth(fd) }
                return false
            }
            guard grace > 0, let timer = state.timer else {
                state.cutByServer = true
                if state.descriptorOpen { Socket.shutdownBoth(fd) }
                return false
            }
            // As a lingering close, but with nothing shut: the client must not see an end it would
            // answer by closing, which would look like its own leaving.
            let deadline = ConnectionState.now + nanoseconds(grace)
            state.phase = .lingering(deadline: deadline)
            state.parsingEnded = true
            state.pending.removeAll()
            state.inbound.removeAll()
            schedule(timer, at: deadline, leeway: .milliseconds(1))
            updateReading(&state)
            return true
        }
        if !closesLater { queue.async { [self] in state.withLock { closeNow(&$0) } } }
    }

    // MARK: Reading

    func readable() {
        let read = state.withLock { state -> Bool in
            guard state.phase != .closed else { return false }
            let lingering = if case .lingering = state.phase { true } else { false }
            let readsToTheEnd = lingering || state.phase == .upgraded
            var total = 0
            let outcome = withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { buffer in
                while total < HTTPServerLimits.readBatchBytes {
                    switch Socket.readSome(fd, into: buffer) {
                    case .bytes(let count):
                        total += count
                        if !lingering {
                            state.inbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                        }
                        // Less than the buffer held all there was: no read to learn it would block
                        // (the source fires again for what comes next). But an end of stream that
                        // came with the bytes fires nothing more on Linux's Dispatch (measured: a
                        // socket's client that sent its last frame and closed was never seen to
                        // leave), so a lingering close and a switched protocol read on to learn it.
                        if count < buffer.count, !readsToTheEnd { return Socket.ReadResult.bytes(total) }
                    case .wouldBlock: return Socket.ReadResult.wouldBlock
                    case .endOfStream: return .endOfStream
                    case .failed: return .failed
                    }
                }
                return .bytes(total)
            }
            // Any byte breaks the silence the idle time measures, a head's as a body's: the time is
            // noted here, and the timer, when it fires, waits out the rest (no timer set per read).
            if total > 0 { state.lastProgress = ConnectionState.now }
            switch outcome {
            case .failed:
                closeNow(&state)
                return false
            case .endOfStream:
                state.peerFinished = true
                if lingering {
                    closeNow(&state)
                    return false
                }
                if let answer = state.answer { dropIfAbandoned(answer.serial) }
            case .bytes, .wouldBlock: break
            }
            updateReading(&state)
            return !lingering
        }
        if read { process() }
    }

    /// Resumes or suspends the read source to match what the state wants.
    func updateReading(_ state: inout ConnectionState) {
        guard let source = state.readSource, state.phase != .closed else { return }
        let wanted = state.wantsToRead(limits)
        if wanted, state.readSuspended {
            state.readSuspended = false
            source.resume()
        } else if !wanted, !state.readSuspended {
            state.readSuspended = true
            source.suspend()
        }
    }

    // MARK: Writing

    /// Sends what the socket takes now; arms the write source for the rest. When all is sent on a
    /// closing connection, shuts the sending side and lingers (or closes, if the client already ended).
    func flush(_ state: inout ConnectionState) {
        while !state.outbound.isEmpty, state.phase != .closed {
            switch state.outbound.withUnsafeBytes({ Socket.sendSome(fd, $0) }) {
            case .sent(let count):
                state.outbound.removeFirst(count)
                state.lastProgress = ConnectionState.now
            case .wouldBlock:
                runDrainWaiters(&state)
                armWriting(&state)
                return
            case .failed:
                closeNow(&state)
                return
            }
        }
        runDrainWaiters(&state)
        if let source = state.writeSource, !state.writeSuspended {
            state.writeSuspended = true
            source.suspend()
        }
        guard state.phase == .closingAfterFlush else { return }
        if state.peerFinished || limits.lingerTimeout == 0 {
            closeNow(&state)
        } else {
            Socket.shutdownSending(fd)
            let deadline = ConnectionState.now + nanoseconds(limits.lingerTimeout)
            state.phase = .lingering(deadline: deadline)
            state.inbound.removeAll()
            if let timer = state.timer { schedule(timer, at: deadline) }
            updateReading(&state)
        }
    }

    private func armWriting(_ state: inout ConnectionState) {
        if let source = state.writeSource {
            if state.writeSuspended {
                state.writeSuspended = false
                source.resume()
            }
            return
        }
        let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [weak self] in self?.writable() }
        source.setCancelHandler { [self] in sourceCancelled() }
        state.writeSource = source
        state.sourcesOnDescriptor += 1
        source.activate()
    }

    private func writable() {
        state.withLock { flush(&$0) }
        process()
    }

    // MARK: Closing

    /// Answers with `failure`, reads nothing more, and closes once it is sent.
    func fail(_ state: inout ConnectionState, _ failure: RequestFailure) {
        state.pending.removeAll()
        state.parsingEnded = true
        state.outbound.append(contentsOf: ResponseEncoding.failure(failure))
        state.phase = .closingAfterFlush
        flush(&state)
        updateReading(&state)
    }

    /// Closes now: cancels the sources (the descriptor is closed after the last cancel handler), drops
    /// what is buffered, and lets the answer in progress know. Safe to call more than once.
    func closeNow(_ state: inout ConnectionState) {
        guard state.phase != .closed else { return }
        state.phase = .closed
        if let read = state.readSource {
            read.cancel()
            if state.readSuspended { read.resume() }
        }
        if let write = state.writeSource {
            write.cancel()
            if state.writeSuspended { write.resume() }
        }
        state.timer?.cancel()
        state.readSource = nil
        state.writeSource = nil
        state.timer = nil
        state.inbound.removeAll()
        state.outbound.removeAll()
        state.pending.removeAll()
        state.pendingBodyBytes = 0
        state.answerCutShort = state.answer?.serial
        if let onClose = state.answer?.onClose { queue.async(execute: onClose) }
        state.answer = nil
        if let upgrade = state.upgrade {
            state.upgrade = nil  // the protocol holds the connection's channel: the cycle ends here
            queue.async { upgrade.connectionClosed() }
        }
        runDrainWaiters(&state)
        if state.sourcesOnDescriptor == 0 {
            closeDescriptor(&state)
            queue.async { [self] in table.remove(self) }
        }
    }

    private func sourceCancelled() {
        let closed = state.withLock { state -> Bool in
            state.sourcesOnDescriptor -= 1
            guard state.sourcesOnDescriptor == 0 else { return false }
            closeDescriptor(&state)
            return true
        }
        if closed { table.remove(self) }
    }

    private func closeDescriptor(_ state: inout ConnectionState) {
        guard state.descriptorOpen else { return }
        state.descriptorOpen = false
        Socket.closeDescriptor(fd)
    }
}
