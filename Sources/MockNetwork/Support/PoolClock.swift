import Dispatch
import Foundation

/// The clock of a test's wait on work of the test's own (a request that a task of the test makes):
/// time in which the concurrency pool ran nothing it was given does not count, since the test's
/// task could not run then either. Other tests take the pool's threads (synchronous tests that
/// block, as tutorials write them, hold them for seconds), so without it a test's verdict would
/// depend on what other tests do.
///
/// While the wait lasts, a probe job goes to the pool every 0.1 s (one at a time, at the waiter's
/// priority), sent by a timer: the time a probe waited past 20 ms, and the time the timer fired late
/// past 20 ms (a task's sleep ends as late), are not counted (overlaps count once), at most `cap`
/// seconds in all. Dropping the clock, or ``stop()``, stops its probes.
package final class PoolClock: Sendable {
    private struct State {
        /// Seconds not counted so far.
        var notCounted: TimeInterval = 0
        /// Until when waits are counted already, so that two probes waiting at once count once.
        var countedUntil: UInt64 = 0
        var probing = false
        var stopped = false
    }

    private let state = Locked(State())
    private let priority: TaskPriority?
    private let cap: TimeInterval
    /// What a probe may wait without its wait counting as the pool's: a turn of a busy machine.
    private static let slack: TimeInterval = 0.02

    /// Starts the clock, for a wait that starts now.
    package init(priority: TaskPriority? = Task.currentPriority, cap: TimeInterval = 30) {
        self.priority = priority
        self.cap = cap
        tick()
    }

    /// Seconds the pool held what it was given, or timers fired late: the wait does not count them.
    package var notCounted: TimeInterval { state.withLock { $0.notCounted } }

    /// Ends the clock's probes, and a pending ``expire(start:timeout:_:)``: the wait is over.
    package func stop() {
        state.withLock { $0.stopped = true }
    }

    /// Calls `expire` when a wait of `timeout` seconds that began at `start` is over
    /// (``isOver(start:timeout:)``), unless ``stop()`` came first. For a wait that a callback ends:
    /// it runs on Dispatch's threads, not the pool's, and the clock lives until then.
    package func expire(start: DispatchTime, timeout: TimeInterval, _ expire: @escaping @Sendable () -> Void) {
        guard timeout.isFinite else { return }
        DispatchQueue.global().asyncAfter(deadline: deadline(start: start, timeout: timeout)) { [self] in
            guard !state.withLock({ $0.stopped }) else { return }
            atDeadline(start: start, timeout: timeout) { over in
                guard over else { return self.expire(start: start, timeout: timeout, expire) }
                if !self.state.withLock({ $0.stopped }) { expire() }
            }
        }
    }

    /// When a wait of `timeout` seconds that began at `start` ends, the time not counted added.
    package func deadline(start: DispatchTime, timeout: TimeInterval) -> DispatchTime {
        timeout.isFinite ? start + timeout + notCounted : .distantFuture
    }

    /// At a wait's deadline: one more turn of the pool (what it has waiting runs first, a task of the
    /// test's among it), then, unless the time not counted moved the deadline, a grace for such a
    /// task's request to get through Foundation (the longer the turn took, the longer). Whether the
    /// wait is over; else its deadline moved.
    package func isOver(start: DispatchTime, timeout: TimeInterval) async -> Bool {
        await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            atDeadline(start: start, timeout: timeout) { done.resume(returning: $0) }
        }
    }

    /// ``isOver(start:timeout:)``, told to `done` from Dispatch's threads.
    private func atDeadline(start: DispatchTime, timeout: TimeInterval, _ done: @escaping @Sendable (Bool) -> Void) {
        turn { [self] waited, ran in
            guard DispatchTime.now() >= deadline(start: start, timeout: timeout) else { return done(false) }
            // A pool that ran nothing ran no task of the test's either: no grace then.
            let grace = Self.slack + (ran ? min(5 * waited, 2) : 0)
            DispatchQueue.global().asyncAfter(deadline: .now() + grace) { done(true) }
        }
    }

    /// One turn of the pool: a job put on it now runs after what it has waiting (a task of the test's
    /// among it); `done` gets how long it waited, and whether it ran. A pool that runs nothing for the
    /// rest of the `cap` ends the turn then, so that a wait still ends when the pool never frees.
    private func turn(_ done: @escaping @Sendable (_ waited: TimeInterval, _ ran: Bool) -> Void) {
        let asked = DispatchTime.now().uptimeNanoseconds
        let finished = Locked(false)
        let finish: @Sendable (_ ran: Bool) -> Void = { [self] ran in
            guard
                !finished.withLock({ was in
                    defer { was = true }
                    return was
                })
            else { return }
            let now = DispatchTime.now().uptimeNanoseconds
            count(asked: asked, ran: now)
            done(Double(now - min(now, asked)) / 1e9, ran)
        }
        Task.detached(priority: priority) { finish(true) }
        let left = max(0, cap - notCounted) + Self.slack
        DispatchQueue.global().asyncAfter(deadline: .now() + left) { finish(false) }
    }

    /// What the wait says of the time not counted, for its message: empty when there was none to speak of.
    package var note: String {
        let seconds = notCounted
        guard seconds >= 0.05 else { return "" }
        return " (and \((seconds * 10).rounded() / 10) s more that did not count: other work held the threads of "
            + "Swift's concurrency pool, so the test's own tasks could not run)"
    }

    private func tick() {
        let due = DispatchTime.now() + 0.1
        DispatchQueue.global().asyncAfter(deadline: due) { [weak self] in
            guard let self else { return }
            // A timer that fires late says a task's sleep ends late too: that time does not count.
            count(asked: due.uptimeNanoseconds, ran: DispatchTime.now().uptimeNanoseconds)
            let send = state.withLock { state -> Bool in
                guard !state.stopped, !state.probing else { return false }
                state.probing = true
                return true
            }
            if send {
                let asked = DispatchTime.now().uptimeNanoseconds
                Task.detached(priority: priority) { [weak self] in
                    let ran = DispatchTime.now().uptimeNanoseconds
                    self?.state.withLock { $0.probing = false }
                    self?.count(asked: asked, ran: ran)
                }
            }
            if !state.withLock({ $0.stopped }) { tick() }
        }
    }

    /// Counts out the part of a wait (from `asked` to `ran`, in uptime nanoseconds: a probe's, or a
    /// timer's lateness) past the slack that no other wait counted out.
    private func count(asked: UInt64, ran: UInt64) {
        state.withLock { state in
            let from = max(asked + UInt64(Self.slack * 1e9), state.countedUntil)
            guard ran > from else { return }
            state.notCounted = min(cap, state.notCounted + Double(ran - from) / 1e9)
            state.countedUntil = ran
        }
    }
}
