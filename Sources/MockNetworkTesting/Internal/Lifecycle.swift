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

    /// Lets the jobs the concurrency pool took before this call run their first step: a `Task` the
    /// test made and did not await, which resumes its request there.
    ///
    /// The pool takes jobs in order. One job per pool thread is started here, and each waits (at most
    /// 500 ms, on a machine so busy the pool is slow to take them) until all of them run at once: by
    /// then every pool thread has finished what it ran before, so every job queued earlier than these
    /// has run its step. A test that blocks a pool thread only makes this wait its bound.
    ///
    /// Tests that end at once take turns (awaited, holding no thread): two meetings at a time would
    /// each hold a thread the other needs, and every task in the process would wait their bound.
    /// Returns whether every job arrived (false: one waited its bound).
    @discardableResult
    package static func letEarlierJobsRun() async -> Bool {
        await rendezvousTurns.take()
        let width = ProcessInfo.processInfo.activeProcessorCount
        let arrived = Rendezvous(width)
        let met = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<width {
                group.addTask { arrived.arriveAndWait(upTo: 0.5) }
            }
            return await group.allSatisfy { $0 }
        }
        await rendezvousTurns.give()
        return met
    }

    private static let rendezvousTurns = Turns()

    /// Reports, calls `beforeReset` (the test's traffic is still there to attach), then cancels what
    /// is still in flight and empties the registry.
    static func end(
        _ registry: MockRegistry, through fail: (MockFailure) -> Void, beforeReset: () -> Void = {}
    ) {
        finish(registry, registry.settledFailures(), through: fail, beforeReset: beforeReset)
    }

    /// As ``end(_:through:beforeReset:)``, for a test whose end runs on the concurrency pool (the
    /// trait's): the wait for what the test started happens on a Dispatch thread. It can take up to
    /// two seconds (a request resumed and not begun) and polls while it waits; on a thread of the pool
    /// it would keep the tests running beside this one from it, and stall their tasks and streams.
    static func end(
        _ registry: MockRegistry, through fail: (MockFailure) -> Void, beforeReset: () -> Void = {}
    ) async {
        let failures = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: registry.settledFailures()) }
        }
        finish(registry, failures, through: fail, beforeReset: beforeReset)
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

/// A meeting point for `count` threads: each waits until all have arrived, or its time is up.
final class Rendezvous: @unchecked Sendable {  // `arrived` is only read and written while `condition` is locked
    private let condition = NSCondition()
    private let count: Int
    private var arrived = 0

    init(_ count: Int) { self.count = count }

    /// Waits until all have arrived (true) or the time is up (false).
    func arriveAndWait(upTo seconds: TimeInterval) -> Bool {
        let limit = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        condition.broadcast()
        while arrived < count, condition.wait(until: limit) {}
        return arrived >= count
    }
}

/// One at a time, in the order they asked, for callers that await their turn rather than block.
actor Turns {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Returns when it is the caller's turn.
    func take() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Ends the caller's turn: the next in line goes on.
    func give() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
