import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// What requests are answered from: the handlers, the log, the failures, where handlers run.
    /// A ``MockRegistry`` is this plus its session; the ``Directory`` keeps a core while its registry
    /// or that session is alive, so `let session = MockRegistry().session` keeps working.
    final class Core: Sendable {
        let protocolClass: URLProtocol.Type
        let unmatched: Unmatched
        let requestLogLimit: Int
        let state: Locked<State>
        private let runner = Locked<(any HandlerRunner)?>(nil)
        /// Whether the end of a test fails for every handler never called.
        let requiresEveryHandlerCalled = Locked(false)
        /// Whether a failing test's report gets the traffic (`attachesTrafficOnFailure`).
        let attachesTraffic = Locked(TrafficReport.onByEnvironment)

        init(protocolClass: URLProtocol.Type, unmatched: Unmatched, requestLogLimit: Int) {
            self.protocolClass = protocolClass
            self.unmatched = unmatched
            self.requestLogLimit = requestLogLimit
            state = Locked(State(logLimit: requestLogLimit))
        }

        func record(_ failure: MockFailure) {
            state.withLock { $0.failures.append(failure) }
        }

        // MARK: In flight

        func began(
            _ id: Int, _ request: URLRequest, task: URLSessionTask?, release: @escaping @Sendable () -> Void
        ) {
            let taskID = task.map(ObjectIdentifier.init)
            state.withLock { $0.inFlight[id] = InFlight(request: request, taskID: taskID, release: release) }
        }

        func ended(_ id: Int) {
            _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
        }

        /// Fails every request still waiting for an answer: the registry and its session are gone.
        func releaseWaiting() {
            for request in state.withLock({ Array($0.inFlight.values) }) { request.release() }
        }

        // MARK: Where handlers run

        /// Where handlers run: `nil` for MockNetwork's own threads, or a test's task tree.
        /// (A class in the lock, not a closure: an optional closure kept in the generic lock was
        /// measured to leak about 2 KB a call and to get slower with every request.)
        var handlerRunner: (any HandlerRunner)? {
            get { runner.withLock { $0 } }
            set { runner.withLock { $0 = newValue } }
        }

        /// Runs `work`, which calls user code, where this registry's handlers run.
        func runUserCode(_ work: @escaping @Sendable () -> Void) {
            if let runner = runner.withLock({ $0 }) {
                runner.submit(work)
            } else {
                HandlerThreads.run(work)
            }
        }

        /// Runs `work`, an `async` handler's, in a task where this registry's handlers run, and
        /// hands that task to `started` (to cancel it when the request ends first).
        func runAsyncUserCode(
            _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void
        ) {
            if let runner = runner.withLock({ $0 }) {
                runner.submit(work, started: started)
            } else {
                started(HandlerThreads.task(work))
            }
        }
    }

    /// A request between `startLoading` and its answer, with what to do if the registry goes first.
    struct InFlight: Sendable {
        let request: URLRequest
        /// The task it belongs to, to tell it from tasks that have not reached MockNetwork yet.
        let taskID: ObjectIdentifier?
        /// Fails the request at once with "registry was released".
        let release: @Sendable () -> Void
    }
}
