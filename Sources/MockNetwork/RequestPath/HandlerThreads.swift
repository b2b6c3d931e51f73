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
enum HandlerThreads {
    static func run(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue(label: "MockNetwork.handler").async(execute: work)
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
