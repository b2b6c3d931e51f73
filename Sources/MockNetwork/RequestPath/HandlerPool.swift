import Foundation

/// The threads user code runs on: each registry's work on at most ``shareWidth`` threads at once,
/// and nothing else bounding them. Dispatch's threads while fewer than ``dispatchBudget`` run on them
/// in all (they start fastest), threads of MockNetwork's own beyond that.
///
/// Dispatch gives a process about 255 worker threads, for every queue and timer in it: a bound on
/// them in all (it was 192) lets the stuck handlers of a few tests, ended ones included, hold up
/// every later test. So at most ``dispatchBudget`` of them run user code; past that, work runs on
/// threads of MockNetwork's own, which count against no such limit: a registry whose handlers are
/// all stuck holds only its own threads, and another registry's handler, or a handler that waits
/// for another registry's, always finds one. A share that runs ``shareWidth`` at once queues the
/// rest; a thread that ends its work takes its share's next. A thread of its own idle for
/// ``idleLifetime`` ends, and at most ``mostIdle`` wait idle, so a burst leaves nothing behind.
final class HandlerPool: Sendable {
    static let shared = HandlerPool(shareWidth: 32)

    /// How many of one share's run at once at most.
    let shareWidth: Int
    /// How long an idle thread waits for work before it ends.
    static let idleLifetime: TimeInterval = 2
    /// How many idle threads wait for work at most; a thread that would be one more ends.
    static let mostIdle = 16
    /// How many works run on Dispatch's threads at most, in all (measured: a hand-off to an idle
    /// thread of MockNetwork's own cost a sequential handler 1.85-2.1x the tutorials' request, where
    /// Dispatch's costs 1.1-1.4x).
    static let dispatchBudget = 64

    private struct Queue {
        var running = 0
        var waiting: [@Sendable () -> Void] = []
        /// The index in `waiting` of the next to run (earlier slots are spent).
        var head = 0

        var hasWaiting: Bool { head < waiting.count }

        mutating func pop() -> @Sendable () -> Void {
            let work = waiting[head]
            head += 1
            if head == waiting.count {
                (waiting, head) = ([], 0)
            } else if head >= 1_024, head * 2 >= waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return work
        }
    }

    private struct State {
        var queues: [ObjectIdentifier: Queue] = [:]
        var idle: [Worker] = []
        /// How many run on Dispatch's threads now.
        var onDispatch = 0

        /// Counts a start in `share`; `false` (and `work` queued) when the share has no room.
        mutating func start(_ share: ObjectIdentifier, _ work: @escaping @Sendable () -> Void, width: Int) -> Bool {
            var queue = queues[share] ?? Queue()
            defer { queues[share] = queue }
            if queue.running < width, !queue.hasWaiting {
                queue.running += 1
                return true
            }
            queue.waiting.append(work)
            return false
        }

        /// Counts the end of one of `share`'s, and takes its next in its place, counted.
        mutating func end(_ share: ObjectIdentifier) -> (@Sendable () -> Void)? {
            guard var queue = queues[share] else { return nil }
            defer { queues[share] = queue.running == 0 && !queue.hasWaiting ? nil : queue }
            guard queue.hasWaiting else {
                queue.running -= 1
                return nil
            }
            return queue.pop()
        }
    }

    private let state = Locked(State())

    init(shareWidth: Int) {
        self.shareWidth = shareWidth
    }

    /// How many of `share`'s run now.
    func running(in share: HandlerShare) -> Int {
        state.withLock { $0.queues[ObjectIdentifier(share)]?.running ?? 0 }
    }

    /// Runs `work` on a thread of its own when `share` has room, else when its turn comes; whether
    /// it started at once.
    @discardableResult
    func run(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) -> Bool {
        let key = ObjectIdentifier(share)
        guard state.withLock({ $0.start(key, work, width: shareWidth) }) else { return false }
        startWork(work, key)
        return true
    }

    /// Runs `work`, already counted in its share, then its share's next: on a Dispatch thread within
    /// the budget, else on an idle thread of MockNetwork's own, else on a new one.
    private func startWork(_ work: @escaping @Sendable () -> Void, _ share: ObjectIdentifier) {
        let place = state.withLock { state -> Worker?? in
            if state.onDispatch < Self.dispatchBudget {
                state.onDispatch += 1
                return .none
            }
            return .some(state.idle.popLast())
        }
        switch place {
        case .none:
            // A serial queue's: Dispatch adds a thread at once when the others are blocked.
            DispatchQueue(label: "MockNetwork.handler").async { [self] in
                var next: (@Sendable () -> Void)? = work
                while let current = next {
                    current()
                    next = state.withLock { $0.end(share) }
                }
                state.withLock { $0.onDispatch -= 1 }
            }
        case .some(.some(let idle)): idle.assign(work, in: share)
        case .some(.none): Worker.start(work, in: share, pool: self)
        }
    }

    /// Runs `work` on the calling thread, counted in `share`, when it has room; else it waits its turn
    /// as with ``run(_:in:)``. For a caller whose thread may block on user code (a served request's
    /// connection, not Foundation's queue): no thread is woken for it.
    func runHere(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) {
        let key = ObjectIdentifier(share)
        guard state.withLock({ $0.start(key, work, width: shareWidth) }) else { return }
        work()
        // Work that waited meanwhile goes on on a thread of its own; the caller's thread is its own.
        guard let next = state.withLock({ $0.end(key) }) else { return }
        startWork(next, key)
    }

    /// `worker` ended one of `share`'s: its share's next work for it to run, or `nil`, and it is idle.
    fileprivate func finished(_ share: ObjectIdentifier, by worker: Worker) -> (@Sendable () -> Void)? {
        state.withLock { state in
            if let next = state.end(share) { return next }
            state.idle.append(worker)
            return nil
        }
    }

    /// Whether `worker`, idle, may end: it is taken off the idle list (`false`: work is on its way).
    fileprivate func retire(_ worker: Worker) -> Bool {
        state.withLock { state in
            guard let index = state.idle.lastIndex(where: { $0 === worker }) else { return false }
            state.idle.remove(at: index)
            return true
        }
    }

    /// Whether an idle thread beyond ``mostIdle`` should end now rather than wait.
    fileprivate func hasTooManyIdle() -> Bool {
        state.withLock { $0.idle.count > Self.mostIdle }
    }
}

/// One thread of the pool: runs the work it is given, then its share's next, then waits idle.
private final class Worker: @unchecked Sendable {  // `assigned` is only read and written while `condition` is locked
    private let condition = NSCondition()
    private var assigned: (work: @Sendable () -> Void, share: ObjectIdentifier)?

    static func start(_ work: @escaping @Sendable () -> Void, in share: ObjectIdentifier, pool: HandlerPool) {
        let worker = Worker()
        worker.assigned = (work, share)
        let thread = Thread(block: { worker.loop(pool) })
        thread.name = "MockNetwork.handler"
        thread.start()
    }

    /// Hands `work` to this idle thread.
    func assign(_ work: @escaping @Sendable () -> Void, in share: ObjectIdentifier) {
        condition.lock()
        assigned = (work, share)
        condition.signal()
        condition.unlock()
    }

    private func loop(_ pool: HandlerPool) {
        while let (first, share) = nextAssigned(pool) {
            var work: (@Sendable () -> Void)? = first
            while let current = work {
                #if canImport(Darwin)
                    // A thread of its own drains no autorelease pool between works, as Dispatch's do.
                    autoreleasepool { current() }
                #else
                    current()
                #endif
                work = pool.finished(share, by: self)
            }
        }
    }

    /// The next work given to this thread, or `nil` once it has waited idle long enough to end.
    private func nextAssigned(_ pool: HandlerPool) -> (@Sendable () -> Void, ObjectIdentifier)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let (work, share) = assigned {
                assigned = nil
                return (work, share)
            }
            let limit = Date(timeIntervalSinceNow: pool.hasTooManyIdle() ? 0 : HandlerPool.idleLifetime)
            if !condition.wait(until: limit), assigned == nil {
                // Work may have been handed over between the wait's end and here: only a thread still on
                // the idle list ends; one taken off it waits for what it was given.
                condition.unlock()
                let ends = pool.retire(self)
                condition.lock()
                if ends { return nil }
            }
        }
    }
}
