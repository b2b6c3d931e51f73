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
        private let context = Locked<ContextBox?>(nil)

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

        var handlerContext: HandlerContext? {
            get { context.withLock { $0?.run } }
            set { context.withLock { $0 = newValue.map(ContextBox.init) } }
        }

        /// Holds the context as a concrete function value. (Kept as an optional closure in the
        /// generic lock, each call through it was measured to leak about 2 KB and to get slower
        /// with every request.)
        private final class ContextBox: Sendable {
            let run: HandlerContext
            init(_ run: @escaping HandlerContext) { self.run = run }
        }

        /// Runs `work`, which calls user code, where this registry's handlers run.
        func runUserCode(_ work: @escaping @Sendable () -> Void) {
            if let box = context.withLock({ $0 }) {
                box.run(work)
            } else {
                HandlerThreads.run(work)
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

    /// Runs a handler's work somewhere of the caller's choosing (the `.mockNetwork` trait: inside
    /// the test's task, so that `#expect` in a handler is an issue of that test).
    package typealias HandlerContext = @Sendable (@escaping @Sendable () -> Void) -> Void
}
