import Dispatch
import Foundation

/// Where a registry's handlers run when not on MockNetwork's own threads: the `.mockNetwork`
/// trait's ``TestTaskRunner`` runs them in the test's task tree.
package protocol HandlerRunner: Sendable {
    /// Runs `work`, which calls a synchronous handler.
    func submit(_ work: @escaping @Sendable () -> Void)
    /// Runs `work`, an `async` handler's, in a task, and hands that task to `started` (which
    /// cancels it when the request ends first).
    func submit(_ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void)
}

/// A registry's share of the threads user code runs on: its handlers (synchronous, `async`, under the
/// trait, a `hold`'s) take at most ``HandlerPool/shareWidth`` of them at once, so one test's stuck or
/// slow handlers can use up only its own share, never another test's.
package final class HandlerShare: Sendable {
    package init() {}

    /// The executor a task of this share's runs on: each job on one of the share's threads.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    package var executor: HandlerExecutor { HandlerExecutor(self) }
}

/// Where handlers run when no test says otherwise: never on Foundation's queue.
///
/// On Linux every session's work is serialized on one queue that `startLoading` runs on, so a
/// handler run there that blocks stalls every session in the process, and one that makes a
/// request traps in `dispatch_sync`. Each handler gets a serial queue of its own instead: such
/// queues run on Dispatch's overcommitting threads, which are added at once when the others
/// are busy (the global and concurrent queues add a thread for blocked work only after about a
/// second), so a handler that sleeps or waits on a nested request delays no other handler.
///
/// Those threads are bounded: Dispatch gives a process about 255, and when every one is blocked
/// (in handlers, or waiting for Foundation's queue) nothing in the process runs again, timers
/// included. So ``HandlerPool`` bounds them, per registry and in all.
enum HandlerThreads {
    /// Runs `work` on a thread of `share`'s; whether it started at once (`false`: it waits its turn).
    @discardableResult
    static func run(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) -> Bool {
        HandlerPool.shared.run(work, in: share)
    }

    /// A task for an `async` handler's `work`: on `share`'s executor where task executors exist (the
    /// share's threads, so a blocked cooperative pool cannot starve it, and a handler that blocks
    /// holds one of its own registry's threads), else on the pool.
    static func task(_ work: @escaping @Sendable () async -> Void, in share: HandlerShare) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: share.executor) { await work() }
        }
        return Task { await work() }
    }
}

/// A bounded set of threads for user code, shared fairly by registries: work runs on a thread of its
/// own (a serial queue's, so Dispatch adds one at once when the others are blocked) while its share
/// runs fewer than ``shareWidth`` and all run fewer than ``width``; later work waits in its share's
/// queue. A thread that ends its work takes the next that waits, from the shares in the order they
/// came to wait, so a share that keeps every one of its threads blocked delays no other share, and a
/// handler that waits for another registry's handler always finds a thread for it (until ``width``
/// shares are full at once: six registries with every thread stuck).
final class HandlerPool: Sendable {
    static let shared = HandlerPool(width: 192, shareWidth: 32)

    /// How many run at once at most, in all (Dispatch's ~255 threads keep room for Foundation's queue,
    /// timers and the rest of the process).
    let width: Int
    /// How many of one share's run at once at most.
    let shareWidth: Int

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
        var running = 0
        var queues: [ObjectIdentifier: Queue] = [:]
        /// The shares with work waiting and room of their own, in the order they got so: only the
        /// width in all keeps their work waiting.
        var ready: [ObjectIdentifier] = []

        /// Counts a start in `share`; `false` (and `work` queued) when there is no room for it.
        mutating func start(_ share: ObjectIdentifier, _ work: @escaping @Sendable () -> Void, pool: HandlerPool)
            -> Bool
        {
            var queue = queues[share] ?? Queue()
            defer { queues[share] = queue }
            if queue.running < pool.shareWidth, running < pool.width, !queue.hasWaiting {
                queue.running += 1
                running += 1
                return true
            }
            queue.waiting.append(work)
            if queue.running < pool.shareWidth, !ready.contains(share) { ready.append(share) }
            return false
        }

        /// Counts the end of one of `share`'s, and takes the next to run in its place, with its share.
        mutating func end(_ share: ObjectIdentifier, pool: HandlerPool) -> (ObjectIdentifier, @Sendable () -> Void)? {
            running -= 1
            if var queue = queues[share] {
                queue.running -= 1
                if queue.running == 0, !queue.hasWaiting {
                    queues[share] = nil
                } else {
                    queues[share] = queue
                    if queue.hasWaiting, !ready.contains(share) { ready.append(share) }
                }
            }
            guard running < pool.width, let next = ready.first, var queue = queues[next] else { return nil }
            let work = queue.pop()
            queue.running += 1
            running += 1
            if !queue.hasWaiting || queue.running >= pool.shareWidth { ready.removeFirst() }
            queues[next] = queue
            return (next, work)
        }
    }

    private let state = Locked(State())

    init(width: Int, shareWidth: Int) {
        self.width = width
        self.shareWidth = shareWidth
    }

    /// Runs `work` on a thread of its own when `share` has room, else when its turn comes; whether
    /// it started at once.
    @discardableResult
    func run(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) -> Bool {
        let key = ObjectIdentifier(share)
        guard state.withLock({ $0.start(key, work, pool: self) }) else { return false }
        runOnThreadOfItsOwn(work, key)
        return true
    }

    /// Runs `work` on the calling thread, counted in `share`, when it has room; else it waits its turn
    /// as with ``run(_:in:)``. For a caller whose thread may block on user code (a served request's
    /// connection, not Foundation's queue): no thread is woken for it.
    func runHere(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) {
        let key = ObjectIdentifier(share)
        guard state.withLock({ $0.start(key, work, pool: self) }) else { return }
        work()
        // Work that waited meanwhile goes on on a thread of its own; the caller's thread is its own.
        if let (next, work) = state.withLock({ $0.end(key, pool: self) }) { runOnThreadOfItsOwn(work, next) }
    }

    /// Runs `work`, already counted in `share`, then what waits, on a serial queue's thread.
    private func runOnThreadOfItsOwn(_ work: @escaping @Sendable () -> Void, _ share: ObjectIdentifier) {
        DispatchQueue(label: "MockNetwork.handler").async { [self] in
            var next: (ObjectIdentifier, @Sendable () -> Void)? = (share, work)
            while let (share, current) = next {
                current()
                next = state.withLock { $0.end(share, pool: self) }
            }
        }
    }
}
