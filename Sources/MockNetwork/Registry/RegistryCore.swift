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
        /// The registry's share of the threads handlers run on (``HandlerPool``).
        let share = HandlerShare()
        /// Whether the end of a test fails for every handler never called.
        let requiresEveryHandlerCalled = Locked(false)
        /// Products' settings for this registry (`MockRegistry[setting:]`).
        let settings = Locked<[ObjectIdentifier: any Sendable]>([:])
        /// What stops when the test that owns the registry ends (``MockRegistry/stopWithTest(_:)``).
        let stopsWithTest = Locked<[WeakStopping]>([])
        /// The name of the test that owned the registry, once it ended: later requests are late.
        let endedTestName = Locked<String?>(nil)

        var endedTest: String? { endedTestName.withLock { $0 } }

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

        /// Foundation made the protocol for `request`: the request counts from here (see
        /// `MockURLProtocol.init`), until it ends or its protocol goes.
        func created(_ id: Int, _ request: URLRequest) {
            let waiters = state.withLock { state in
                state.created[id] = Created(request: request)
                state.made += 1
                return state.takeChangeWaiters()
            }
            for waiter in waiters { waiter.fire() }
        }

        /// The task of the request `id`, made and not begun: kept until it begins or ends.
        func createdTask(_ id: Int, _ task: URLSessionTask) {
            state.withLock { $0.created[id]?.task = WeakTask(task) }
        }

        /// The request `id` began; `isOver`, for a request another door serves, says whether it is
        /// over for its client though it has not ended here (see ``InFlight/isOver``).
        func began(
            _ id: Int, _ request: URLRequest, task: URLSessionTask?, isOver: (@Sendable () -> Bool)? = nil,
            release: @escaping @Sendable (URLError) -> Void
        ) {
            let taskID = task.map(ObjectIdentifier.init)
            let waiters = state.withLock { state in
                state.created[id] = nil
                state.inFlight[id] = InFlight(request: request, taskID: taskID, release: release, isOver: isOver)
                return state.takeChangeWaiters()
            }
            for waiter in waiters { waiter.fire() }
        }

        func ended(_ id: Int) {
            let waiters = state.withLock { state in
                state.created[id] = nil
                state.inFlight[id] = nil
                return state.takeChangeWaiters()
            }
            for waiter in waiters { waiter.fire() }
        }

        /// The requests in flight that are over for their clients though they have not ended here (a
        /// served request whose client has all its answer, or hung up), asked outside the lock.
        func overForTheirClients() -> Set<Int> {
            let asked = state.withLock { state in
                state.inFlight.compactMap { id, request in request.isOver.map { (id, $0) } }
            }
            return Set(asked.filter { $0.1() }.map(\.0))
        }

        /// Wakes `waiter` once at the next change of the requests made, begun, ended or held.
        func whenChanged(_ waiter: ChangeWaiter) {
            state.withLock { $0.changeWaiters.append(waiter) }
        }

        /// Wakes those waiting for a change: a gate now holds a request.
        func changed() {
            for waiter in state.withLock({ $0.takeChangeWaiters() }) { waiter.fire() }
        }

        /// The sessions that sent the registry requests (its own, those made from its `configuration`
        /// or a copy of it): a test's end asks them for tasks resumed and not begun.
        private let sessions = Locked<[ObjectIdentifier: WeakSession]>([:])

        struct WeakSession: @unchecked Sendable {  // `URLSession` is thread-safe; only read through `session`
            weak var session: URLSession?
        }

        /// A task a registry's request belongs to, not kept alive by the registry.
        struct WeakTask: @unchecked Sendable {  // `URLSessionTask` is thread-safe; only read through `task`
            weak var task: URLSessionTask?

            init(_ task: URLSessionTask) { self.task = task }
        }

        /// A request whose protocol Foundation made and that has not begun; on Linux, its task once
        /// Foundation set it, for a test's end to cancel (``MockRegistry/cancelTasksNotBegun()``).
        struct Created: Sendable {
            let request: URLRequest
            var task: WeakTask?
        }

        func noteSession(_ session: URLSession) {
            let key = ObjectIdentifier(session)
            sessions.withLock { sessions in
                guard sessions[key]?.session == nil else { return }
                if sessions.count >= 64 { sessions = sessions.filter { $0.value.session != nil } }
                sessions[key] = WeakSession(session: session)
            }
        }

        /// The sessions noted by ``noteSession(_:)`` that are still alive.
        var notedSessions: [URLSession] {
            sessions.withLock { $0.values.compactMap(\.session) }
        }

        /// Fails every request still waiting for an answer: the registry and its session are gone.
        func releaseWaiting() {
            endInFlight(with: MockURLProtocol.releasedError)
        }

        /// Ends every request still in flight with `error`: its answer, or what is left of its body.
        func endInFlight(with error: URLError) {
            for request in state.withLock({ Array($0.inFlight.values) }) { request.release(error) }
        }

        // MARK: Where handlers run

        /// Where handlers run: `nil` for MockNetwork's own threads, or a test's task tree.
        /// (A class in the lock, not a closure: an optional closure kept in the generic lock was
        /// measured to leak about 2 KB a call and to get slower with every request.)
        var handlerRunner: (any HandlerRunner)? {
            get { runner.withLock { $0 } }
            set { runner.withLock { $0 = newValue } }
        }

        /// Runs `work`, which calls user code, where this registry's handlers run; with `here`, on
        /// the calling thread when they run on MockNetwork's own threads and one is free (never
        /// from Foundation's queue).
        func runUserCode(here: Bool = false, _ work: @escaping @Sendable () -> Void) {
            if let runner = runner.withLock({ $0 }) {
                runner.submit(work)
            } else if here {
                HandlerPool.shared.runHere(work, in: share)
            } else {
                HandlerThreads.run(work, in: share)
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
                started(HandlerThreads.task(work, in: share))
            }
        }
    }

    /// A request between `startLoading` and its answer, with what to do if the registry goes first.
    struct InFlight: Sendable {
        let request: URLRequest
        /// The task it belongs to, to tell it from tasks that have not reached MockNetwork yet.
        let taskID: ObjectIdentifier?
        /// Ends the request at once with the error given ("registry was released", "the test ended"):
        /// its answer, or what is left of a streamed body.
        let release: @Sendable (URLError) -> Void
        /// For a request another door serves: whether it is over for its client, seen now (its client
        /// has all of its answer, or hung up, which ends it), though its end has not reached the
        /// registry yet. The end of a test counts such a request as ended.
        var isOver: (@Sendable () -> Bool)?
    }
}
