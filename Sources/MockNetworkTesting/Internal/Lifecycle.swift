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

    /// Cancels what is still in flight on the registry's session, stops what stops with the test (a
    /// server serving the registry) and empties the registry.
    static func cancelAndReset(_ registry: MockRegistry) {
        registry.stopWhatStopsWithTest()
        registry.session.getAllTasks { tasks in
            for task in tasks { task.cancel() }
        }
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
    /// Runs `body` with a ``TaskWitness`` bound, then, when a task `body` made is still running (it may
    /// not have started yet: the concurrency pool may be busy, or only one thread wide), waits until
    /// it has made a request in `registry` or ended, or until it has surely started and made none
    /// (below), at most `bound` seconds. Holds no thread, and costs nothing when no task was left
    /// running.
    ///
    /// "Surely started": a job of the lowest priority, enqueued on the pool now, has run (the pool
    /// starts the jobs of a priority in the order they came, and higher ones first, so a task made
    /// earlier has started: on a pool one thread wide, its first step has run), and 20 ms more, plus
    /// five times what the pool took to start that job, have passed without a request (its first step
    /// on another thread, even one the system preempted on a loaded machine).
    /// So a test that leaves a long-lived task running (one that awaits a stream, say) pays about
    /// 20 ms, not the bound.
    static func awaitingTasksLeftRunning<R>(
        in registry: MockRegistry, bound: TimeInterval = 0.5, _ body: () async throws -> R
    ) async throws -> R {
        let gone = Flag()
        let result: Result<R, any Error>
        do {
            result = .success(
                try await TaskWitness.$current.withValue(
                    TaskWitness(gone: gone) { [weak registry] in registry?.noteChange() }, operation: body))
        } catch {
            result = .failure(error)
        }
        await awaitTasksLeftRunning(registry, gone: gone, bound: bound)
        return try result.get()
    }

    private static func awaitTasksLeftRunning(_ registry: MockRegistry, gone: Flag, bound: TimeInterval) async {
        guard !gone.isSet else { return }
        let made = registry.requestsMade
        let started = Flag()
        let wake: @Sendable () -> Void = { [weak registry] in
            started.set()
            registry?.noteChange()
        }
        let enqueued = DispatchTime.now().uptimeNanoseconds
        Task.detached(priority: .background) {
            // The grace grows with how long the pool took to start this job: on a machine whose cores
            // are taken (a sanitizer, other tests spinning), a task's first step takes longer too.
            let waited = DispatchTime.now().uptimeNanoseconds - enqueued
            let grace = 20_000_000 + 5 * waited
            DispatchQueue.global().asyncAfter(
                deadline: .now() + .nanoseconds(Int(min(grace, 500_000_000))), execute: wake)
        }
        await registry.awaitChange(until: .now() + bound) { [weak registry] in
            gone.isSet || started.isSet || (registry?.requestsMade ?? made) > made
        }
    }
}

/// A flag set once, read from any thread.
final class Flag: Sendable {
    private let value = Locked(false)

    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
