/// Where an answer stands for its client: what a responder asks before it calls an unfinished
/// answer cut short, and what a stopping server asks before it closes the connection.
extension Connection {
    /// Where the answer numbered `serial` stands now, seen without waiting; from any thread.
    func progress(of serial: Int) -> HTTPResponseWriter.Progress {
        state.withLock { progress(of: serial, &$0) }
    }

    /// As ``progress(of:)``, in the state's lock.
    func progress(of serial: Int, _ state: inout ConnectionState) -> HTTPResponseWriter.Progress {
        let closed = state.phase == .closed
        guard closed ? state.answerCutShort == serial : state.answer?.serial == serial else { return .sent }
        // Closed with the answer in progress, not by the server's stop: an end of stream, a reset, or
        // nothing taken for the idle time.
        if closed { return state.cutByServer ? .cutShort : .clientLeft }
        // An end of stream alone is a client that left too (see `dropIfAbandoned`).
        if state.peerFinished { return .clientLeft }
        if case .streaming(let framing, let sendsBody, let remaining) = state.answer?.body, state.outbound.isEmpty {
            // Its head alone, or its announced length, is the whole of it.
            let lengthReached = if case .length = framing { remaining == 0 } else { false }
            if !sendsBody || framing == .bodiless || lengthReached { return .sent }
        }
        // A client that hung up and whose end the queue has not read yet.
        return state.descriptorOpen && Socket.peerHasLeft(fd) ? .clientLeft : .writing
    }
}
