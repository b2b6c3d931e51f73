import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(watchOS)
    // Apple's URLProtocol documentation: custom protocols cannot be used in watchOS 2 and later, so a
    // registry's session there would send every request to the real network.
    #error(
        "MockNetwork cannot mock requests on watchOS: Apple does not load custom URLProtocol classes there. Test the watch app's networking code in an iOS or macOS target."
    )
#endif

/// The `URLProtocol` that answers requests from a ``MockRegistry``'s handlers.
///
/// Sessions made by a registry use a subclass of their own, so you rarely name this class.
/// The class itself serves the process-wide ``registry``, the classic style of the tutorials:
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [MockURLProtocol.self]
/// MockURLProtocol.registry.register("https://api.example.com/user") { _ in .json("{}") }
/// ```
/// Prefer a registry per test: the process-wide one is shared by every test in the process.
public class MockURLProtocol: URLProtocol {
    /// The process-wide registry that sessions configured with `MockURLProtocol.self` are answered from.
    ///
    /// `MockNetworkTestCase` reports its failures and empties it after every test. The `.mockNetwork`
    /// trait reports them in the test that used it, but cannot empty it: Swift Testing runs tests in
    /// parallel, and two tests using it at once see each other's handlers (the trait reports that too).
    public static var registry: MockRegistry {
        ProcessWideUse.current?.note()
        return processWide
    }

    private static let processWide = MockRegistry(protocolClass: MockURLProtocol.self)

    // How a request goes (ARCHITECTURE.md has the map; `Exchange` has its states; the steps live in
    // `RequestPath/`):
    // 1. `startLoading` begins it. Answers that run no user code (sequences, archives) and need no
    //    wait are found and delivered right there.
    // 2. Anything else (a handler, a `.when` predicate, an unmatched report, a delay, a session
    //    delegate's challenge, the network) happens elsewhere: never on Foundation's queue, which on
    //    Linux every session in the process shares.
    // 3. The answer is then delivered from the client's context: on Linux by the thread that has it,
    //    holding Foundation's queue (`FoundationQueue`); on Apple platforms on the thread that ran
    //    `startLoading`.
    //    MockNetwork enforces the request's timeout meanwhile.

    let exchange = Locked(Exchange())

    // Made by Foundation for a task's request. The request counts as started from here, not from
    // `startLoading`: on Linux Foundation makes the protocol inside the task's `resume()` (for a
    // session without a URL cache), so a test that resumes a task and ends at once still waits for
    // it and reports what became of it.
    #if canImport(FoundationNetworking)
        /// Made by Foundation for a task's request; the request counts as started from here.
        public required init(request: URLRequest, cachedResponse: CachedURLResponse?, client: (any URLProtocolClient)?)
        {
            super.init(request: request, cachedResponse: cachedResponse, client: client)
            noteCreated()
        }
    #else
        /// Made by Foundation for a task's request; the request counts as started from here.
        override public init(request: URLRequest, cachedResponse: CachedURLResponse?, client: (any URLProtocolClient)?)
        {
            super.init(request: request, cachedResponse: cachedResponse, client: client)
            noteCreated()
        }
    #endif

    private func noteCreated() {
        guard let (registry, _) = MockRegistry.Directory.destination(of: type(of: self)) else { return }
        registry.created(id, request)
        exchange.withLock { $0.registry = registry }
    }

    #if canImport(FoundationNetworking)
        /// Linux's Foundation sets the task just after `init` (where the request counted): the
        /// registry keeps it from then until the request begins, to cancel it if the test ends first.
        override public var task: URLSessionTask? {
            didSet {
                guard let task, let registry = exchange.withLock({ $0.registry }) else { return }
                registry.createdTask(id, task)
            }
        }
    #endif

    deinit {
        // A protocol Foundation made and dropped without starting (or stopping) it ends here.
        exchange.withLock { $0.registry }?.ended(id)
    }

    /// Takes every request, whatever its scheme: a request no handler matches fails instead of
    /// reaching the network.
    override public class func canInit(with request: URLRequest) -> Bool { true }

    /// The request as it is.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Answers the request from the registry this class routes to.
    override public func startLoading() {
        #if canImport(FoundationNetworking)
            FoundationQueue.holding { load() }
        #else
            load()
        #endif
    }

    private func load() {
        var entry = exchange.withLock { $0.enterStartLoading() }
        while true {
            switch entry {
            case .begin: begin()
            case .deliver(let answer): deliver(answer)
            case .resumeStream: deliverDuePieces()
            case .wait: break
            }
            // An answer that came while this ran is delivered here, before Foundation's queue is left.
            guard let answer = exchange.withLock({ $0.leaveStartLoading() }) else { return }
            entry = .deliver(answer)
        }
    }

    /// Stops delivery. A cancel ends the request. On Linux a suspend only pauses it, and the answer
    /// is delivered when the task is resumed (Foundation then calls `startLoading` again).
    override public func stopLoading() {
        #if canImport(FoundationNetworking)
            FoundationQueue.holding { stop() }
        #else
            stop()
        #endif
    }

    private func stop() {
        let pausing = stopPauses
        let ended: (DispatchWorkItem?, URLSessionTask?, Int?, MockRegistry.Core?, Task<Void, Never>?)? =
            exchange.withLock { exchange in
                exchange.stopped = true
                if pausing { return nil }
                exchange.phase = .done
                defer {
                    (exchange.delay, exchange.passthrough, exchange.timeoutToken, exchange.handlerTask) = (
                        nil, nil, nil, nil
                    )
                }
                return (
                    exchange.delay, exchange.passthrough, exchange.timeoutToken, exchange.registry,
                    exchange.handlerTask
                )
            }
        guard let (delay, passthrough, timeoutToken, registry, handlerTask) = ended else { return }
        delay?.cancel()
        handlerTask?.cancel()
        if let passthrough {
            // Not from here: this runs on Foundation's queue, and cancelling a task waits for it.
            DispatchQueue.global().async { passthrough.cancel() }
        }
        if let timeoutToken { Deadlines.shared.cancel(timeoutToken) }
        registry?.ended(id)
    }

    /// Whether this `stopLoading` is a pause that a later `startLoading` ends.
    ///
    /// On Linux Foundation stops a protocol when its task is suspended and starts the same instance
    /// again on resume; a stop while the task reads `.suspended` or `.running` is that pause (a
    /// cancel reads `.canceling`, a finished task `.completed`). Apple's URL loading never restarts a stopped protocol: it stops one
    /// when the task is cancelled or finished, or on its own resource timeout while the task is
    /// `.running`. There every stop ends the request, so no delay, deadline or pass-through outlives it.
    private var stopPauses: Bool {
        #if canImport(FoundationNetworking)
            let state = task?.state
            return state == .suspended || state == .running
        #else
            return false
        #endif
    }

    var id: Int { ObjectIdentifier(self).hashValue }
}
