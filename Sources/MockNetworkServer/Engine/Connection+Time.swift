import Dispatch
import Foundation

/// Time on a connection: closing one whose client makes no progress for the idle time (with 408 when
/// a request was begun), and ending a lingering close at its deadline.
extension Connection {
    func timerFired() {
        let readFirst = state.withLock { state -> Bool in
            guard let timer = state.timer else { return false }
            let now = ConnectionState.now
            switch state.phase {
            case .closed:
                return false
            case .lingering(let deadline):
                guard now >= deadline else {
                    schedule(timer, at: deadline, leeway: state.stopping ? .milliseconds(1) : nil)
                    return false
                }
                // A stopping server's grace ran out: an answer whose client is still there is cut
                // short by the server.
                if state.stopping, let serial = state.answer?.serial, progress(of: serial, &state) == .writing {
                    state.cutByServer = true
                }
                // What the client sent meanwhile is dropped first: a close with unread bytes would
                // reset the connection, and the client could lose the answer it has not read yet.
                discardWaitingBytes()
                closeNow(&state)
                return false
            case .open, .closingAfterFlush, .upgraded:
                break
            }
            let idle = nanoseconds(limits.idleTimeout)
            guard state.waitsOnClient, now >= state.lastProgress + idle else {
                schedule(timer, at: state.waitsOnClient ? state.lastProgress + idle : now + idle)
                return false
            }
            guard state.phase == .open, state.outbound.isEmpty, state.answer == nil else {
                closeNow(&state)  // the client takes nothing of what is sent
                return false
            }
            schedule(timer, at: now + idle)
            if state.parser.hasPartialRequest || !state.inbound.isEmpty {
                // RFC 9110 (15.5.9): a request not finished in time is answered with 408.
                fail(&state, RequestFailure(status: 408, reason: "the request did not arrive within the idle timeout"))
                return false
            }
            // Nothing begun: close, unless a request is arriving just now (its read event not yet
            // handled); then it is read first, and held to the time from here.
            guard Socket.hasBytesWaiting(fd) else {
                closeNow(&state)
                return false
            }
            return true
        }
        if readFirst { readable() }
    }

    private func discardWaitingBytes() {
        withUnsafeTemporaryAllocation(byteCount: 64 * 1024, alignment: 1) { buffer in
            for _ in 0..<16 {
                guard case .bytes = Socket.readSome(fd, into: buffer) else { return }
            }
        }
    }

    /// Arms `timer` for `uptime`, late by at most `leeway` (by default a fiftieth of the idle time).
    func schedule(_ timer: any DispatchSourceTimer, at uptime: UInt64, leeway: DispatchTimeInterval? = nil) {
        let leeway = leeway ?? .milliseconds(max(1, Int(limits.idleTimeout * 20)))
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: uptime), leeway: leeway)
    }

    func nanoseconds(_ seconds: TimeInterval) -> UInt64 { UInt64(seconds * 1e9) }
}
