import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The end of a test waits, bounded, until every request the test started has ended: woken by the
/// registry's changes (a request made, begun, ended, held) and by the time its bounds run out, never
/// polling, and never on a queue the client owns.
extension MockRegistry {
    /// Waits, bounded, until every request the test started has ended, and returns those still open.
    ///
    /// What counts as started, from the earliest moment MockNetwork can know it, without a race:
    /// - a request whose protocol Foundation made (on Linux inside `resume()` itself, which covers
    ///   the first request of a new session too), until it begins;
    /// - on Apple platforms, a task of a session that sent this registry requests (its own
    ///   ``session``, sessions made from ``configuration`` or a copy) that is running: Foundation
    ///   lists it from `resume()` on, but answers on the session's delegate queue, so a session whose
    ///   queue is the main one is not asked from the main thread (it could answer only after the test);
    /// - a request that began and has not ended.
    /// Requests not begun yet are waited for up to two seconds (a busy machine may take a while to
    /// call `startLoading`); once only begun ones remain, they get 50 ms to end (one the test did
    /// not await may be just answered). A request a gate holds counts as ended here.
    ///
    /// It blocks the calling thread (XCTest's `tearDown`, `verify()`) only while a request is open.
    func settle() -> [URLRequest] {
        var settling = Settling(tasks: Self.runningTasks(of: sessionsToAsk))
        while true {
            let waiter = ChangeWaiter()
            core.whenChanged(waiter)
            switch settling.step(self) {
            case .done(let open): return open
            case .wait(let until): waiter.wait(until: until)
            }
        }
    }

    /// As ``settle()``, awaited: it holds no thread while it waits.
    func awaitSettled() async -> [URLRequest] {
        var settling = Settling(tasks: await Self.runningTasks(of: sessionsToAsk))
        while true {
            let waiter = ChangeWaiter()
            core.whenChanged(waiter)
            switch settling.step(self) {
            case .done(let open): return open
            case .wait(let until): await waiter.wait(until: until)
            }
        }
    }

    /// How many requests Foundation made a protocol for in this registry, ever: a request the test
    /// starts counts from there (on Linux inside `resume()`).
    package var requestsMade: Int { state.withLock { $0.made } }

    /// Wakes what waits in ``awaitChange(until:where:)``: something it checks changed.
    package func noteChange() {
        core.changed()
    }

    /// Returns once `isOver()` holds, checked now and at each change of the registry's requests (made,
    /// begun, ended, held, or ``noteChange()``), or at `until`; holds no thread meanwhile.
    package func awaitChange(until: DispatchTime, where isOver: @Sendable () -> Bool) async {
        while DispatchTime.now() < until {
            let waiter = ChangeWaiter()
            core.whenChanged(waiter)
            if isOver() { return }
            await waiter.wait(until: until)
        }
    }

    /// As ``awaitChange(until:where:)``, blocking the calling thread (XCTest's, at the end of a test).
    package func waitForChange(until: DispatchTime, where isOver: @Sendable () -> Bool) {
        while DispatchTime.now() < until {
            let waiter = ChangeWaiter()
            core.whenChanged(waiter)
            if isOver() { return }
            waiter.wait(until: until)
        }
    }

    /// The sessions to ask for their running tasks: none on Linux, where a task's protocol is made
    /// in `resume()` and so counts from there.
    private var sessionsToAsk: [URLSession] {
        #if canImport(FoundationNetworking)
            return []
        #else
            var seen = Set<ObjectIdentifier>()
            return ([session] + core.notedSessions).filter { session in
                guard seen.insert(ObjectIdentifier(session)).inserted else { return false }
                return !(Thread.isMainThread && session.delegateQueue === OperationQueue.main)
            }
        #endif
    }

    /// The tasks of `sessions` that are running now (resumed and not ended); each session is asked
    /// for at most a second (its delegate queue answers, and a test may have blocked it).
    private static func runningTasks(of sessions: [URLSession]) -> [URLSessionTask] {
        guard !sessions.isEmpty else { return [] }
        let found = Locked<[URLSessionTask]>([])
        let group = DispatchGroup()
        for session in sessions {
            group.enter()
            session.getAllTasks { tasks in
                found.withLock { $0 += tasks.filter { $0.state == .running } }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + 1)
        return found.withLock { $0 }
    }

    private static func runningTasks(of sessions: [URLSession]) async -> [URLSessionTask] {
        guard !sessions.isEmpty else { return [] }
        var found: [URLSessionTask] = []
        for session in sessions {
            let answered = ChangeWaiter()
            let tasks = Locked<[URLSessionTask]>([])
            session.getAllTasks { all in
                tasks.withLock { $0 = all.filter { $0.state == .running } }
                answered.fire()
            }
            await answered.wait(until: .now() + 1)
            found += tasks.withLock { $0 }
        }
        return found
    }
}

/// Where the wait of ``MockRegistry/settle()`` stands.
private struct Settling {
    enum Step {
        case done([URLRequest])
        /// Wait for a change, or until then.
        case wait(until: DispatchTime)
    }

    var tasks: [URLSessionTask]
    let start = DispatchTime.now()
    /// Since when only begun requests remain.
    var begunOnlySince: DispatchTime?

    /// Whether the wait is over (and what is still open), or until when to wait for a change.
    mutating func step(_ registry: MockRegistry) -> Step {
        // First: a served request whose client hung up ends now (a hold lets go of it), and one whose
        // client has all of its answer is complete, whether or not the server has seen it yet.
        let over = registry.core.overForTheirClients()
        let (inFlight, created, heldCount) = registry.state.withLock { state in
            (
                state.inFlight.filter { !over.contains($0.key) }, state.created,
                state.gates.reduce(0) { $0 + $1.held.count }
            )
        }
        let begun = Set(inFlight.values.compactMap(\.taskID))
        tasks = tasks.filter { $0.state == .running && !begun.contains(ObjectIdentifier($0)) }
        let notBegun = !tasks.isEmpty || !created.isEmpty
        if !notBegun && inFlight.count <= heldCount { return .done([]) }
        let now = DispatchTime.now()
        if notBegun {
            begunOnlySince = nil
        } else if begunOnlySince == nil {
            begunOnlySince = now
        }
        let limit = DispatchTime(uptimeNanoseconds: start.uptimeNanoseconds + 2_000_000_000)
        let quietLimit = begunOnlySince.map { DispatchTime(uptimeNanoseconds: $0.uptimeNanoseconds + 50_000_000) }
        let until = min(limit, quietLimit ?? limit)
        guard now >= until else { return .wait(until: until) }
        // Requests not begun, and not made by a protocol, are named from their task.
        let open = inFlight.values.map(\.request) + created.values.map(\.request)
        let createdURLs = Set(created.values.compactMap(\.request.url))
        return .done(
            open
                + tasks.compactMap(\.originalRequest).filter { request in
                    !createdURLs.contains { $0 == request.url }
                })
    }
}

/// A one-time wake-up: fired by a change (or an answer), waited for by a thread or a task, bounded.
final class ChangeWaiter: Sendable {
    private struct State {
        var fired = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())
    private let semaphore = DispatchSemaphore(value: 0)

    func fire() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
        semaphore.signal()
    }

    /// Blocks the calling thread until fired, or until `until`.
    func wait(until: DispatchTime) {
        _ = semaphore.wait(timeout: until)
    }

    /// Returns when fired, or at `until`, holding no thread meanwhile.
    func wait(until: DispatchTime) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.fired { return true }
                state.continuation = continuation
                return false
            }
            if now {
                continuation.resume()
            } else {
                DispatchQueue.global().asyncAfter(deadline: until) { self.fire() }
            }
        }
    }
}
