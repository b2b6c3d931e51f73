import Dispatch
import Foundation

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
}
