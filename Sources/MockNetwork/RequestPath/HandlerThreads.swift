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
/// included. So at most ``HandlerPool/width`` handlers run at once, and the rest wait their turn
/// in the order they came.
enum HandlerThreads {
    static func run(_ work: @escaping @Sendable () -> Void) {
        HandlerPool.shared.run(work)
    }

    /// A task for an `async` handler's `work`: on ``HandlerExecutor`` where task executors exist
    /// (the same threads, so a blocked cooperative pool cannot starve it), else on the pool.
    static func task(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return Task(executorPreference: HandlerExecutor.shared) { await work() }
        }
        return Task { await work() }
    }
}

/// A bounded set of threads for user code: work runs on a thread of its own (a serial queue's, so
/// Dispatch adds one at once when the others are blocked) while fewer than ``width`` run; later work
/// waits in a queue, and each thread takes the next before it ends.
final class HandlerPool: Sendable {
    static let shared = HandlerPool(width: 64)

    /// How many run at once at most.
    let width: Int

    private struct State {
        var waiting: [@Sendable () -> Void] = []
        /// The index in `waiting` of the next to run (earlier slots are spent).
        var head = 0
        var running = 0

        mutating func next() -> (@Sendable () -> Void)? {
            guard head < waiting.count else {
                running -= 1
                return nil
            }
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

    private let state = Locked(State())

    init(width: Int) {
        self.width = width
    }

    func run(_ work: @escaping @Sendable () -> Void) {
        guard takesSlot(or: work) else { return }
        runOnThreadOfItsOwn(work)
    }

    /// Runs `work` on the calling thread, counted among the ``width`` that run at once, when fewer
    /// run; else it waits its turn as with ``run(_:)``. For a caller whose thread may block on user
    /// code (a served request's connection, not Foundation's queue): no thread is woken for it.
    func runHere(_ work: @escaping @Sendable () -> Void) {
        guard takesSlot(or: work) else { return }
        work()
        // Work that waited meanwhile goes on on a thread of its own; the caller's thread is its own.
        if let next = state.withLock({ $0.next() }) { runOnThreadOfItsOwn(next) }
    }

    /// Counts `work` as running when fewer than ``width`` run (true), else queues it (false).
    private func takesSlot(or work: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state -> Bool in
            guard state.running < width else {
                state.waiting.append(work)
                return false
            }
            state.running += 1
            return true
        }
    }

    /// Runs `work`, already counted as running, then what waits, on a serial queue's thread.
    private func runOnThreadOfItsOwn(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "MockNetwork.handler").async { [self] in
            var next: (@Sendable () -> Void)? = work
            while let current = next {
                current()
                next = state.withLock { $0.next() }
            }
        }
    }
}
