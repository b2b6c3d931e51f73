import Foundation

/// Sending answers: what an `HTTPResponseWriter` asks for, applied under the connection's lock by
/// the thread that asks (`WriterMailbox`). A call for an answer that has ended, or on a connection
/// that has closed, does nothing.
extension Connection {
    /// Takes a writer's call, from any thread.
    func post(_ call: WriterCall) {
        guard mailbox.withLock({ $0.post(call) }) else { return }
        if drainMailbox() { queue.async { [self] in process() } }
    }

    /// Applies the calls waiting until none is left (as the drainer); true when an answer ended and
    /// the queue has more to do (requests read ahead, or the client's end of stream).
    @discardableResult
    func drainMailbox() -> Bool {
        var queueHasWork = false
        while case let calls = mailbox.withLock({ $0.takeOrStop() }), !calls.isEmpty {
            if apply(calls) { queueHasWork = true }
        }
        return queueHasWork
    }

    /// Applies writer calls in order, then sends what they wrote together; true when the queue has
    /// work for `process` after them.
    private func apply(_ calls: [WriterCall]) -> Bool {
        state.withLock { state in
            for call in calls {
                switch call.kind {
                case .respond(let status, let headers, let body):
                    respond(call.serial, status: status, headers: headers, body: body, &state)
                case .begin(let status, let headers, let length):
                    begin(call.serial, status: status, headers: headers, length: length, &state)
                case .write(let piece): write(call.serial, piece, &state)
                case .end: end(call.serial, &state)
                case .abort: abort(call.serial, &state)
                case .switchProtocols(let head, let upgrade):
                    if switchProtocols(call.serial, head: head, to: upgrade, &state) {
                        queue.async { [self] in
                            upgrade.switched()
                            process()
                        }
                    } else {
                        // The connection closed first (its client left): the protocol ends unstarted.
                        queue.async { upgrade.connectionClosed() }
                    }
                case .onClose(let handler):
                    // On the queue, as `closeNow` runs it: never inside the caller's own locks.
                    if onClose(call.serial, handler, &state) { queue.async(execute: handler) }
                }
            }
            guard state.phase != .closed else { return false }
            flush(&state)
            updateReading(&state)
            return state.phase == .open && state.answer == nil
                && (!state.pending.isEmpty || !state.inbound.isEmpty || state.peerFinished || state.awaitingContinue)
        }
    }

    private func respond(
        _ serial: Int, status: Int, headers: HTTPHeaders, body: Data, _ state: inout ConnectionState
    ) {
        guard var answer = current(serial, &state), case .notStarted = answer.body else { return }
        let status = Self.checked(status)
        let sendsBody = ResponseEncoding.allowsBody(status: status, method: answer.method)
        let framing: ResponseEncoding.Framing =
            ResponseEncoding.allowsLength(status: status) ? .length(body.count) : .bodiless
        answer.body = .streaming(framing: framing, sendsBody: sendsBody, remaining: 0)
        let connection = connectionField(answer, keepsOpen: answer.keepsOpen)
        state.outbound.append {
            ResponseEncoding.appendHead(
                to: &$0, status: status, headers: headers, framing: framing, connection: connection)
        }
        if sendsBody { state.outbound.append(contentsOf: body) }
        finish(answer, keepsOpen: answer.keepsOpen, &state)
    }

    private func begin(
        _ serial: Int, status: Int, headers: HTTPHeaders, length: Int?, _ state: inout ConnectionState
    ) {
        guard var answer = current(serial, &state), case .notStarted = answer.body else { return }
        let status = Self.checked(status)
        let framing: ResponseEncoding.Framing =
            if !ResponseEncoding.allowsLength(status: status) {
                .bodiless
            } else if let length {
                .length(max(length, 0))
            } else if answer.version >= .http11 {
                .chunked
            } else {
                .untilClose  // HTTP/1.0 knows no chunks: the body ends with the connection
            }
        let sendsBody = ResponseEncoding.allowsBody(status: status, method: answer.method)
        let keepsOpen = answer.keepsOpen && framing != .untilClose
        answer.body = .streaming(framing: framing, sendsBody: sendsBody, remaining: max(length ?? 0, 0))
        let connection = connectionField(answer, keepsOpen: keepsOpen)
        state.outbound.append {
            ResponseEncoding.appendHead(
                to: &$0, status: status, headers: headers, framing: framing, connection: connection)
        }
        state.answer = answer
    }

    private func write(_ serial: Int, _ piece: Data, _ state: inout ConnectionState) {
        guard var answer = current(serial, &state),
            case .streaming(let framing, let sendsBody, var remaining) = answer.body, sendsBody, !piece.isEmpty
        else { return }
        switch framing {
        case .chunked:
            state.outbound.append { ResponseEncoding.appendChunkHead(piece.count, to: &$0) }
            state.outbound.append(contentsOf: piece)
            state.outbound.append(contentsOf: ResponseEncoding.crlf)
        case .length:
            // Past the announced length would be bytes of no message: they are dropped.
            state.outbound.append(contentsOf: piece.prefix(remaining))
            remaining -= min(remaining, piece.count)
            answer.body = .streaming(framing: framing, sendsBody: sendsBody, remaining: remaining)
            state.answer = answer
        case .untilClose:
            state.outbound.append(contentsOf: piece)
        case .bodiless:
            return
        }
    }

    private func end(_ serial: Int, _ state: inout ConnectionState) {
        guard let answer = current(serial, &state) else { return }
        guard case .streaming(let framing, let sendsBody, let remaining) = answer.body else {
            return abort(answer, &state)  // ended before it began: the client gets no answer
        }
        switch framing {
        case .chunked where sendsBody:
            state.outbound.append(contentsOf: ResponseEncoding.lastChunk)
        case .length where sendsBody && remaining > 0:
            return abort(answer, &state)  // shorter than announced: only a close tells the client
        case .untilClose:
            return finish(answer, keepsOpen: false, &state)
        default:
            break
        }
        finish(answer, keepsOpen: answer.keepsOpen, &state)
    }

    private func abort(_ serial: Int, _ state: inout ConnectionState) {
        guard let answer = current(serial, &state) else { return }
        abort(answer, &state)
    }

    /// Keeps `handler` for the answer `serial`; true when it must run at once (outside the lock):
    /// the connection closed while that answer was in progress.
    private func onClose(
        _ serial: Int, _ handler: @escaping @Sendable () -> Void, _ state: inout ConnectionState
    ) -> Bool {
        guard state.answer?.serial == serial, state.phase != .closed else {
            return state.phase == .closed && state.answerCutShort == serial
        }
        state.answer?.onClose = handler
        return false
    }

    // MARK: Helpers

    /// The answer in progress when it is the one numbered `serial` (none goes on while a stopping
    /// server waits for a client to hang up).
    private func current(_ serial: Int, _ state: inout ConnectionState) -> ConnectionState.Answer? {
        guard state.phase == .open, let answer = state.answer, answer.serial == serial else { return nil }
        return answer
    }

    /// The answer has ended: the connection takes its next request (once `apply` has sent what was
    /// written), or closes when it must.
    private func finish(_ answer: ConnectionState.Answer, keepsOpen: Bool, _ state: inout ConnectionState) {
        state.answer = nil
        state.upgradeAsked = false  // answered without switching: what follows is HTTP again
        state.lastProgress = ConnectionState.now
        if !keepsOpen {
            state.parsingEnded = true
            state.pending.removeAll()
            state.phase = .closingAfterFlush
        }
    }

    /// Ends the answer by closing the connection once what was written is sent: the client sees a
    /// body cut short. What else arrives is not read.
    private func abort(_ answer: ConnectionState.Answer, _ state: inout ConnectionState) {
        state.answer = nil
        state.parsingEnded = true
        state.pending.removeAll()
        state.peerFinished = true  // no lingering: the client is meant to see the connection end
        state.phase = .closingAfterFlush
    }

    private func connectionField(_ answer: ConnectionState.Answer, keepsOpen: Bool) -> ResponseEncoding.ConnectionField
    {
        guard keepsOpen else { return .close }
        return answer.version < .http11 ? .keepAlive : .none
    }

    /// A final status the server can send: 200 to 999; anything else is the responder's mistake,
    /// sent as 500.
    private static func checked(_ status: Int) -> Int {
        (200...999).contains(status) ? status : 500
    }
}
