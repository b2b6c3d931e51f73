import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
/// trait, a `hold`'s, a socket's) take at most ``HandlerPool/shareWidth`` of them at once, so one
/// test's stuck or slow handlers can use up only its own share, never another test's.
package final class HandlerShare: Sendable {
    /// The stand-in for the pool, an `any TaskExecutor` (a type a stored property cannot name before
    /// macOS 15).
    private let standIn = Locked<(any Sendable)?>(nil)
    /// The requests whose handlers run now, by token: what a request queued behind them names. The
    /// request is kept as it is (its text is made only for such a message, never per request).
    private let running = Locked<(next: Int, handlers: [Int: (request: URLRequest, since: DispatchTime)])>((0, [:]))

    package init() {}

    /// Notes that the handler of `request` runs from now, until ``ended(_:)``.
    func started(_ request: URLRequest) -> Int {
        running.withLock { running in
            running.next += 1
            running.handlers[running.next] = (request, .now())
            return running.next
        }
    }

    func ended(_ token: Int) {
        _ = running.withLock { $0.handlers.removeValue(forKey: token) }
    }

    /// The handlers that run now, the longest-running first, each as "GET url (running 14.9 s)", at
    /// most `limit` of them and how many more.
    func longestRunning(limit: Int = 3) -> (names: [String], more: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        let handlers = running.withLock { Array($0.handlers.values) }.sorted { $0.since < $1.since }
        let names = handlers.prefix(limit).map { handler in
            let seconds = Double(now - handler.since.uptimeNanoseconds) / 1e9
            let what = "\(handler.request.httpMethod ?? "GET") \(handler.request.url?.absoluteString ?? "")"
            return "\(what) (running \(String(format: "%.1f", seconds)) s)"
        }
        return (names, handlers.count - names.count)
    }

    /// How many of this share's run now, and how many run at most.
    var occupancy: (running: Int, width: Int) {
        (HandlerPool.shared.running(in: self), HandlerPool.shared.shareWidth)
    }

    /// The executor a task of this share's runs on: each job on one of the share's threads.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    package var executor: HandlerExecutor { HandlerExecutor(self) }

    /// For tests of the path Apple platforms take before macOS 15 / iOS 18, where there are no task
    /// executors: with an executor here, this share's `async` work runs as it does there (a task that
    /// no executor of MockNetwork's runs), on this executor standing for Swift concurrency's pool
    /// (a one-thread one, as an iOS 16–17 Simulator's pool is reported to be). `nil` in real use.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    package var poolStandIn: (any TaskExecutor)? {
        get { standIn.withLock { $0 } as? any TaskExecutor }
        set { standIn.withLock { $0 = newValue } }
    }

    /// Whether this share's `async` work runs on task executors of its own (`false`: on the pool).
    var hasExecutors: Bool {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { return poolStandIn == nil }
        return false
    }

    /// A task for `work` on Swift concurrency's pool, as where task executors are missing (or on the
    /// stand-in for the pool a test set).
    func poolTask(_ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), let pool = poolStandIn {
            return Task(executorPreference: pool) { await work() }
        }
        return Task { await work() }
    }
}

/// Where handlers run when no test says otherwise: never on Foundation's queue, never on Dispatch's
/// threads.
///
/// On Linux every session's work is serialized on one queue that `startLoading` runs on, so a
/// handler run there that blocks stalls every session in the process, and one that makes a
/// request traps in `dispatch_sync`. Each handler runs on a thread of ``HandlerPool``'s instead
/// (Dispatch's up to a budget, then threads of MockNetwork's own), so a handler that sleeps or waits
/// on a nested request delays no other handler, and no number of blocked handlers uses up Dispatch's
/// threads, which the whole process (Foundation's queue, timers) shares.
enum HandlerThreads {
    /// Runs `work` on a thread of `share`'s; whether it started at once (`false`: it waits its turn).
    @discardableResult
    static func run(_ work: @escaping @Sendable () -> Void, in share: HandlerShare) -> Bool {
        HandlerPool.shared.run(work, in: share)
    }

    /// A task for an `async` handler's `work`: on `share`'s executor where task executors exist (the
    /// share's threads, so a blocked cooperative pool cannot starve it, and a handler that blocks
    /// holds one of its own registry's threads), else on the pool: there a test that blocks every
    /// thread of the pool keeps it from starting, and the request's timeout says so.
    static func task(_ work: @escaping @Sendable () async -> Void, in share: HandlerShare) -> Task<Void, Never> {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *), share.hasExecutors {
            return Task(executorPreference: share.executor) { await work() }
        }
        return share.poolTask(work)
    }
}
