import Dispatch
import Foundation

/// Runs handlers inside the test's task tree, so that `#expect` and `Issue.record` in a handler are
/// issues of the test that registered it (on Foundation's threads, no test is current), and
/// `MockRegistry.current` is the test's registry. The `.mockNetwork` trait of `MockNetworkTesting`
/// uses it, and so does the benchmark's row for it; it needs no test framework itself, so it lives
/// in the core, which the benchmark can link without XCTest.
///
/// The loop is a task made inside the test's scope, so it and the tasks it makes inherit the
/// test's task-local values, `Test.current` among them. They run on ``HandlerExecutor``, not on the
/// cooperative pool: a synchronous test that blocks its pool thread waiting for its own request
/// (as tutorials write them) cannot starve its handlers. Where task executors are missing (Apple
/// platforms before macOS 15 / iOS 18), the tasks use the pool, and a handler not started within
/// two seconds runs on a thread of the registry's share instead, outside the test: an `#expect` there is reported
/// without a test.
package final class TestTaskRunner: HandlerRunner {
    private let continuation: AsyncStream<Job>.Continuation
    private let usesExecutor: Bool
    private let share: HandlerShare
    /// What each handler's task runs inside while set (see ``setJobScope(_:)``).
    private let scope = Locked<JobScope?>(nil)

    /// A wrapper a handler's task runs inside.
    package final class JobScope: Sendable {
        let wrap: @Sendable (@Sendable () async -> Void) async -> Void

        package init(_ wrap: @escaping @Sendable (@Sendable () async -> Void) async -> Void) {
            self.wrap = wrap
        }
    }

    /// Starts the loop; call it inside the test's scope, whose task-local values handlers then see.
    /// Handlers run on `share`'s threads (the test's registry's).
    package init(share: HandlerShare) {
        self.share = share
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        self.continuation = continuation
        usesExecutor = share.hasExecutors
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), usesExecutor {
            let executor = share.executor
            Task(executorPreference: executor) {
                for await job in stream {
                    job.started(Task(executorPreference: executor) { await job.run() })
                }
            }
        } else {
            _ = share.poolTask {
                for await job in stream {
                    job.started(share.poolTask { await job.run() })
                }
            }
        }
    }

    /// Runs `work` in a task of the test's.
    package func submit(_ work: @escaping @Sendable () -> Void) {
        submit(Job(work, scope: scope.withLock { $0 }))
    }

    /// Runs `work`, an `async` handler's, in a task of the test's, and hands that task to
    /// `started` (which cancels it when the request ends first).
    package func submit(
        _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void
    ) {
        submit(Job(work, started: started, scope: scope.withLock { $0 }))
    }

    /// Handlers submitted from now run inside `scope` (`nil`: none): the testing module binds task-local
    /// values there that a task the handler makes copies, so the end of the test sees such a task.
    package func setJobScope(_ scope: JobScope?) {
        self.scope.withLock { $0 = scope }
    }

    private func submit(_ job: Job) {
        if case .terminated = continuation.yield(job) {
            // The test has ended: its handlers still answer, outside it.
            job.runOutside(in: share)
            return
        }
        if !usesExecutor {
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [share] in job.runOutside(in: share) }
        }
    }

    /// Ends the loop; later work runs outside the test.
    package func finish() {
        continuation.finish()
    }

    /// Work that runs once, wherever it is claimed first.
    final class Job: Sendable {
        private let work: @Sendable () -> Void
        private let asyncWork: (@Sendable () async -> Void)?
        private let onStart: (@Sendable (Task<Void, Never>) -> Void)?
        private let claimed = ClaimFlag()
        /// What the work runs inside (``TestTaskRunner/setJobScope(_:)``).
        private let scope: JobScope?

        init(_ work: @escaping @Sendable () -> Void, scope: JobScope?) {
            self.work = work
            (asyncWork, onStart, self.scope) = (nil, nil, scope)
        }

        init(
            _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void,
            scope: JobScope?
        ) {
            self.work = {}
            (asyncWork, onStart, self.scope) = (work, started, scope)
        }

        /// Runs the work in the task that claimed it.
        func run() async {
            guard claimed.claim() else { return }
            let (work, asyncWork) = (work, asyncWork)
            let body: @Sendable () async -> Void = { if let asyncWork { await asyncWork() } else { work() } }
            if let scope { await scope.wrap(body) } else { await body() }
        }

        /// The task the work runs in (or may run in: another may claim it first).
        func started(_ task: Task<Void, Never>) {
            onStart?(task)
        }

        /// Runs the work outside the test, on `share`'s threads: a synchronous handler on one of them,
        /// an `async` one in a task of its own.
        func runOutside(in share: HandlerShare) {
            if asyncWork != nil {
                started(HandlerThreads.task({ await self.run() }, in: share))
            } else {
                HandlerThreads.run({ self.runHere() }, in: share)
            }
        }

        private func runHere() {
            if claimed.claim() { work() }
        }
    }
}

/// The executor `async` handlers (and the trait's handlers, and sockets') run on: each job on a
/// thread of its registry's ``HandlerShare`` (``HandlerPool``'s: at most 64 of Dispatch's in all, then threads of its own), so a
/// handler may sleep, or wait for a nested request, without delaying any other registry's, and no
/// number of blocked handlers uses up the process's Dispatch threads: a share runs at most
/// ``HandlerPool/shareWidth`` jobs at once, and the others wait their turn. A job that suspends frees
/// its thread.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
package final class HandlerExecutor: TaskExecutor {
    private let share: HandlerShare

    init(_ share: HandlerShare) {
        self.share = share
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        HandlerPool.shared.run({ job.runSynchronously(on: self.asUnownedTaskExecutor()) }, in: share)
    }
}

/// A flag that only one caller can set.
final class ClaimFlag: @unchecked Sendable {  // `isSet` is only read and written while `lock` is held
    private let lock = NSLock()
    private var isSet = false

    /// Whether this call set the flag (`false` when an earlier call already had).
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if isSet { return false }
        isSet = true
        return true
    }
}
