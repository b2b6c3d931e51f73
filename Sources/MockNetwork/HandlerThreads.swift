import Dispatch
import Foundation

/// Where handlers run when no test says otherwise: never on Foundation's queue.
///
/// On Linux every session's work is serialized on one queue that `startLoading` runs on, so a
/// handler run there that blocks stalls every session in the process, and one that makes a
/// request traps in `dispatch_sync`. Each handler gets a serial queue of its own instead: such
/// queues run on Dispatch's overcommitting threads, which are added at once when the others
/// are busy (the global and concurrent queues add a thread for blocked work only after about a
/// second), so a handler that sleeps or waits on a nested request delays no other handler.
enum HandlerThreads {
    static func run(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "MockNetwork.handler").async(execute: work)
    }
}

/// Timeouts MockNetwork enforces itself: Foundation enforces none for a custom protocol on Linux,
/// nor `timeoutIntervalForRequest` on Apple platforms. One timer serves every pending deadline.
final class Deadlines: Sendable {
    static let shared = Deadlines()

    private struct Pending {
        let deadline: DispatchTime
        let expire: @Sendable () -> Void
    }

    private struct State {
        var pending: [Int: Pending] = [:]
        var nextToken = 0
        /// When the timer fires next, `nil` while it is idle.
        var firesAt: DispatchTime?
        let timer: any DispatchSourceTimer
    }

    private let queue = DispatchQueue(label: "MockNetwork.deadlines")
    private let state: Locked<State>

    private init() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        state = Locked(State(timer: timer))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    /// Calls `expire` at `deadline` unless ``cancel(_:)`` comes first; returns the token for that.
    func add(_ deadline: DispatchTime, expire: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.pending[state.nextToken] = Pending(deadline: deadline, expire: expire)
            if state.firesAt.map({ deadline < $0 }) ?? true {
                state.firesAt = deadline
                state.timer.schedule(deadline: deadline, leeway: .milliseconds(1))
            }
            return state.nextToken
        }
    }

    func cancel(_ token: Int) {
        _ = state.withLock { $0.pending.removeValue(forKey: token) }
    }

    private func fire() {
        let now = DispatchTime.now()
        let expired: [@Sendable () -> Void] = state.withLock { state in
            var expired: [@Sendable () -> Void] = []
            var next: DispatchTime?
            for (token, pending) in state.pending {
                if pending.deadline <= now {
                    expired.append(pending.expire)
                    state.pending[token] = nil
                } else if next.map({ pending.deadline < $0 }) ?? true {
                    next = pending.deadline
                }
            }
            state.firesAt = next
            if let next { state.timer.schedule(deadline: next, leeway: .milliseconds(1)) }
            return expired
        }
        for expire in expired { expire() }
    }
}
