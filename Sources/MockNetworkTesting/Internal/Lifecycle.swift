import Dispatch
import Foundation
import MockNetwork

/// The end of a test, shared by ``MockNetworkTestCase``, `verify()` and the `.mockNetwork` trait.
package enum Lifecycle {
    /// Reports what `registry` noticed (unmatched requests, invalid registrations and responses,
    /// unmet expected call counts, requests still in flight) through `fail`, then forgets it.
    static func report(_ registry: MockRegistry, through fail: (MockFailure) -> Void) {
        for failure in registry.settledFailures() { fail(failure) }
    }

    /// Reports, calls `beforeReset` (the test's traffic is still there to attach), then cancels what
    /// is still in flight and empties the registry.
    static func end(
        _ registry: MockRegistry, through fail: (MockFailure) -> Void, beforeReset: () -> Void = {}
    ) {
        finish(registry, registry.settledFailures(), through: fail, beforeReset: beforeReset)
    }

    /// As ``end(_:through:beforeReset:)``, for a test whose end runs on the concurrency pool (the
    /// trait's): it awaits what the test started, holding no thread, so the tests running beside this
    /// one keep the pool while it settles.
    static func end(
        _ registry: MockRegistry, through fail: (MockFailure) -> Void, beforeReset: () -> Void = {}
    ) async {
        finish(registry, await registry.awaitSettledFailures(), through: fail, beforeReset: beforeReset)
    }

    /// Reports `failures`, calls `beforeReset`, then cancels what is in flight and empties the registry.
    private static func finish(
        _ registry: MockRegistry, _ failures: [MockFailure], through fail: (MockFailure) -> Void,
        beforeReset: () -> Void
    ) {
        for failure in failures { fail(failure) }
        beforeReset()
        cancelAndReset(registry)
    }

    /// Stops what stops with the test (a server serving the registry), ends what is still in flight on
    /// any session (a body still arriving, reported already), cancels the registry's session's tasks,
    /// and empties the registry.
    static func cancelAndReset(_ registry: MockRegistry) {
        registry.stopWhatStopsWithTest()
        registry.endRequestsInFlight()
        #if canImport(FoundationNetworking)
            // Linux's `getAllTasks` reads the session's task table off the session's queue and
            // crashes while tasks begin or end; its protocols are made in `resume()`, so the registry
            // knows every task that has not begun.
            registry.cancelTasksNotBegun()
        #else
            registry.session.getAllTasks { tasks in
                for task in tasks { task.cancel() }
            }
        #endif
        registry.reset()
    }

    /// `failures` with `note` added to the first one (on its own line); unchanged without a note.
    package static func withNote(_ note: String?, _ failures: [MockFailure]) -> [MockFailure] {
        guard let note, let first = failures.first else { return failures }
        return [MockFailure(message: first.message + "\n" + note, location: first.location)] + failures.dropFirst()
    }

    /// Reports what the process-wide registry (`MockURLProtocol.registry`, the tutorials' wiring)
    /// noticed during the test that ends; with `reset`, also empties it for the next test.
    static func endProcessWide(reset: Bool, through fail: (MockFailure) -> Void) {
        let registry = MockURLProtocol.registry
        if reset {
            end(registry, through: fail)
        } else {
            for failure in registry.takeFailures() { fail(failure) }
        }
    }
}

/// Bound in a test's scope as a task-local value: every unstructured task the test makes copies it,
/// and a task lets go of its copy when it ends, so the witness lives while a task the test made and
/// did not await does. The end of the test waits for such tasks' requests (``awaitTasksLeftRunning``).
final class TaskWitness: Sendable {
    @TaskLocal static var current: TaskWitness?

    private let gone: Flag
    private let onGone: @Sendable () -> Void

    /// `onGone` runs, and `gone` is set, when the last copy goes.
    init(gone: Flag, onGone: @escaping @Sendable () -> Void) {
        self.gone = gone
        self.onGone = onGone
    }

    deinit {
        gone.set()
        onGone()
    }
}

extension Lifecycle {
    /// Runs `body` with a ``TaskWitness`` bound (and handlers that `runner` runs meanwhile run with it
    /// too), then, while a task `body` or such a handler made is still running (it may not have started
    /// yet: the concurrency pool may be busy, or only one thread wide), waits until it has made a
    /// request in `registry` or ended, at most `bound` seconds. Holds no thread, and costs nothing when
    /// no task was left running.
    ///
    /// A task left running that makes no request (one that awaits a stream that never ends, as a view
    /// model's observer does) costs its test the bound: a task that sleeps before its request cannot be
    /// told from it, and its request belongs to the test. On a busy machine the wait goes on past the
    /// bound until the concurrency pool has run what was waiting at the bound (at most ten times it).
    static func awaitingTasksLeftRunning<R>(
        in registry: MockRegistry, runner: TestTaskRunner? = nil, bound: TimeInterval = 0.5,
        _ body: () async throws -> R
    ) async throws -> R {
        let gone = Flag()
        let result: Result<R, any Error>
        do {
            let witness = TaskWitness(gone: gone) { [weak registry] in registry?.noteChange() }
            runner?.setJobScope(
                TestTaskRunner.JobScope { [witness] work in
                    await TaskWitness.$current.withValue(witness) { await work() }
                })
            defer { runner?.setJobScope(nil) }
            result = .success(try await TaskWitness.$current.withValue(witness, operation: body))
        } catch {
            result = .failure(error)
        }
        await awaitTasksLeftRunning(registry, gone: gone, bound: bound)
        return try result.get()
    }

    private static func awaitTasksLeftRunning(_ registry: MockRegistry, gone: Flag, bound: TimeInterval) async {
        guard !gone.isSet else { return }
        let made = registry.requestsMade
        let start = DispatchTime.now()
        let madeOrGone: @Sendable () -> Bool = { [weak registry] in
            gone.isSet || (registry?.requestsMade ?? made) > made
        }
        // A timer due in 0.1 s, to see how late timers fire now: a task's sleep ends that late too, so
        // the bound grows by five times that (once the timer fired; at most 2 s).
        let timerLate = Locked<TimeInterval?>(nil)
        let due = start + 0.1
        DispatchQueue.global().asyncAfter(deadline: due) { [weak registry] in
            let now = DispatchTime.now().uptimeNanoseconds
            timerLate.withLock { $0 = Double(now - min(now, due.uptimeNanoseconds)) / 1e9 }
            registry?.noteChange()
        }
        let cap = start + 10 * bound
        // The bound, plus the time in which the pool ran nothing of what it was given or timers fired
        // late (a task's sleep ends as late): the clock's time, as a test's waits count it.
        let clock = PoolClock()
        var deadline = start + bound
        while true {
            await registry.awaitChange(until: deadline, where: madeOrGone)
            if madeOrGone() { return }
            let moved = min(clock.deadline(start: start, timeout: bound), cap)
            guard moved > deadline else { break }
            deadline = moved
        }
        await registry.awaitChange(until: cap) { madeOrGone() || timerLate.withLock { $0 } != nil }
        let extended = start + bound + min(5 * (timerLate.withLock { $0 } ?? 0), 2)
        await registry.awaitChange(until: min(extended, cap), where: madeOrGone)
        if madeOrGone() { return }
        // Then: a job of the test's priority enqueued now runs after what the pool has waiting, a task
        // that woke from its sleep before now among it. Once it ran (and a grace that grows with how
        // long it waited, for a task on another thread), such a task has made its request if it makes
        // one at once. On a quiet machine all this is a few milliseconds past the bound; on a busy
        // one, as long as timers and the pool are behind.
        let probed = DispatchTime.now()
        let doneAt = Locked<DispatchTime?>(nil)
        Task.detached(priority: Task.currentPriority) { [weak registry] in
            let now = DispatchTime.now().uptimeNanoseconds
            let waited = Double(now - min(now, probed.uptimeNanoseconds)) / 1e9
            doneAt.withLock { $0 = .now() + 0.02 + min(5 * waited, 2) }
            registry?.noteChange()
        }
        // Until the job ran, then until its grace ends. A pool that other tests hold (synchronous
        // tests that block their threads) runs no task of this test's either, whatever the time: the
        // wait lasts as long as they hold it, up to sixty times the bound, not the cap.
        let blockedCap = start + 60 * bound
        await registry.awaitChange(until: blockedCap) { madeOrGone() || doneAt.withLock { $0 } != nil }
        guard let end = doneAt.withLock({ $0 }) else { return }
        await registry.awaitChange(until: end, where: madeOrGone)
    }
}

/// A flag set once, read from any thread.
final class Flag: Sendable {
    private let value = Locked(false)

    func set() { value.withLock { $0 = true } }
    /// Sets the flag; whether this call set it (it was not set before).
    func setFirst() -> Bool {
        value.withLock { was in
            defer { was = true }; return !was
        }
    }
    var isSet: Bool { value.withLock { $0 } }
}
