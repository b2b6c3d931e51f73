import Foundation

/// Taking requests: parsing what arrived, `100 Continue` in turn, handing requests to the responder
/// one at a time and in order, and the end of the client's stream.
extension Connection {
    /// Moves the connection on as far as it can: parses, answers failures, and calls the responder
    /// for the next request when the last answer has ended. On the connection's queue.
    func process() {
        if state.withLock({ $0.upgrade != nil }) { return processUpgraded() }
        while let (request, writer) = state.withLock({ advance(&$0) }) {
            // Outside the lock: a responder may answer at once; what it writes meanwhile is applied
            // as it returns, and the loop takes the next request.
            mailbox.withLock { $0.beginInline() }
            responder.respond(to: request, writer: writer)
            if mailbox.withLock({ $0.endInline() }) { drainMailbox() }
            if state.withLock({ $0.peerFinished }) { dropIfAbandoned(writer.serial) }
        }
    }

    /// After the client ended its stream, an answer that has not ended once the responder's own calls
    /// have run is cut short: the client is taken to have left (as servers commonly take a client that
    /// hangs up mid-request), and the responder's `onClose` runs. An answer given at once still goes out.
    func dropIfAbandoned(_ serial: Int) {
        queue.async { [self] in
            state.withLock { state in
                guard state.phase == .open, state.answer?.serial == serial else { return }
                closeNow(&state)
            }
        }
    }

    /// One step of `process`, in the lock: the request to hand to the responder now, if any.
    private func advance(_ state: inout ConnectionState) -> (HTTPServerRequest, HTTPResponseWriter)? {
        guard state.phase == .open else { return nil }
        parse(&state)
        if state.awaitingContinue, state.answer == nil, state.pending.isEmpty {
            // Every earlier answer has ended, so the interim answer comes in turn; then the body.
            state.awaitingContinue = false
            state.outbound.append(contentsOf: ResponseEncoding.continueHead)
            parse(&state)
        }
        defer {
            if state.phase != .closed {
                flush(&state)
                updateReading(&state)
            }
        }
        guard state.answer == nil, state.outbound.count < HTTPServerLimits.outboundLowWater else { return nil }
        guard !state.pending.isEmpty else {
            if state.parsingEnded, state.peerFinished {
                // The client ended its stream after whole requests, all answered: close when sent.
                state.phase = .closingAfterFlush
            }
            return nil
        }
        switch state.pending.removeFirst() {
        case .failure(let failure):
            fail(&state, failure)
            return nil
        case .request(let request):
            state.pendingBodyBytes -= request.body.count
            let serial = state.nextSerial
            state.nextSerial += 1
            state.answer = ConnectionState.Answer(
                serial: serial, method: request.method, version: request.version,
                keepsOpen: request.keepsConnectionOpen)
            return (request, HTTPResponseWriter(connection: self, serial: serial))
        }
    }

    /// Parses what arrived into pending requests, as far as the read-ahead limits allow.
    private func parse(_ state: inout ConnectionState) {
        while !state.parsingEnded, !state.awaitingContinue, !state.upgradeAsked,
            state.pending.count < limits.maxPipelinedRequests,
            state.pendingBodyBytes < ConnectionState.readAheadBodyBytes
        {
            switch state.parser.next(from: &state.inbound) {
            case .needMore:
                if state.peerFinished {
                    // The stream ended: inside a request it was cut short, else it ended cleanly.
                    state.parsingEnded = true
                    if state.parser.hasPartialRequest || !state.inbound.isEmpty {
                        state.pending.append(.failure(.malformed("the request ended before it was complete")))
                    }
                }
                return
            case .continueNeeded:
                state.awaitingContinue = true
            case .request(let request):
                state.lastProgress = ConnectionState.now
                state.pendingBodyBytes += request.body.count
                state.pending.append(.request(request))
                // What follows a request to switch protocols may be the new protocol's bytes.
                if request.headers.contains("Upgrade") { state.upgradeAsked = true }
            case .failure(let failure):
                state.parsingEnded = true
                state.pending.append(.failure(failure))
            }
        }
    }
}
