import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from a ``MockRegistry``'s handlers.
///
/// Sessions made by a registry use a subclass of their own, so you rarely name this class.
/// The class itself serves the process-wide ``registry``, the classic style of the tutorials:
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [MockURLProtocol.self]
/// MockURLProtocol.registry.register("https://api.example.com/user") { _ in try .json("{}") }
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

    // How a request goes (see `Exchange` for its states):
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
            case .wait: break
            }
            // An answer that came while this ran is delivered here, before Foundation's queue is left.
            guard let answer = exchange.withLock({ $0.leaveStartLoading() }) else { return }
            entry = .deliver(answer)
        }
    }

    /// Stops delivery. A cancel ends the request; a suspend only pauses it, and the answer is
    /// delivered when the task is resumed (Foundation then calls `startLoading` again).
    override public func stopLoading() {
        #if canImport(FoundationNetworking)
            FoundationQueue.holding { stop() }
        #else
            stop()
        #endif
    }

    private func stop() {
        let state = task?.state
        let pausing = state == .suspended || state == .running
        let ended: (DispatchWorkItem?, URLSessionTask?, Int?, MockRegistry.Core?)? = exchange.withLock { exchange in
            exchange.stopped = true
            if pausing { return nil }
            exchange.phase = .done
            defer { (exchange.delay, exchange.passthrough, exchange.timeoutToken) = (nil, nil, nil) }
            return (exchange.delay, exchange.passthrough, exchange.timeoutToken, exchange.registry)
        }
        guard let (delay, passthrough, timeoutToken, registry) = ended else { return }
        delay?.cancel()
        if let passthrough {
            // Not from here: this runs on Foundation's queue, and cancelling a task waits for it.
            DispatchQueue.global().async { passthrough.cancel() }
        }
        if let timeoutToken { Deadlines.shared.cancel(timeoutToken) }
        registry?.ended(id)
    }

    private var id: Int { ObjectIdentifier(self).hashValue }

    // MARK: Beginning

    private func begin() {
        guard let (registry, configuration) = MockRegistry.Directory.destination(of: type(of: self)) else {
            finishNow(MockRegistry.Answer(result: .failure(Self.releasedError)))
            return
        }
        #if canImport(FoundationNetworking)
            if task is URLSessionDownloadTask {
                let error = MockNetworkError.downloadUnsupported(request.url?.absoluteString ?? "")
                registry.record(MockFailure(message: error.description, location: nil))
                finishNow(MockRegistry.Answer(result: .failure(error)))
                return
            }
        #endif
        let body: Data
        do {
            body = try RequestBody.read(from: request, task: task)
        } catch let error as MockNetworkError {
            registry.record(MockFailure(message: error.description, location: nil))
            finishNow(MockRegistry.Answer(result: .failure(error)))
            return
        } catch {
            finishNow(MockRegistry.Answer(result: .failure(error)))
            return
        }
        var request = SessionBehaviours.prepared(self.request, configuration: configuration)
        if request.httpBodyStream != nil { request.httpBodyStream = nil }
        if !body.isEmpty { request.httpBody = body }
        #if canImport(FoundationNetworking)
            if !body.isEmpty { reportUpload(of: body.count) }
        #endif

        // In flight from here until delivered or cancelled.
        let this = WeakProtocol(self)
        registry.began(id, request, task: task) {
            this.value?.wake(with: MockRegistry.Answer(result: .failure(Self.releasedError)))
        }
        let timeout = Timeouts.timeout(of: request, configuration: configuration)
        exchange.withLock { exchange in
            exchange.registry = registry
            exchange.configuration = configuration
            exchange.timeout = timeout
            if timeout < .infinity { exchange.deadline = .now() + timeout }
            #if !canImport(FoundationNetworking)
                exchange.clientThread = .current()
            #endif
        }

        var chain = MockRegistry.Chain(request, body: body)
        if let answer = registry.answer(&chain, inline: true) {
            proceed(answer, registry, attempt: 0, inline: true)
            return
        }
        armTimeout(waitingFor: .handler)
        registry.runUserCode { [chain] in
            var chain = chain
            guard let answer = registry.answer(&chain) else { return }
            this.value?.proceed(answer, registry, attempt: 0, inline: false)
        }
    }

    /// Fails or answers at once, from inside `startLoading`, before the request was begun.
    private func finishNow(_ answer: MockRegistry.Answer) {
        exchange.withLock { $0.phase = .done }
        deliver(answer)
    }

    static let releasedError = URLError(
        .resourceUnavailable,
        userInfo: [
            NSLocalizedDescriptionKey: "MockNetwork: the MockRegistry behind this session was released. "
                + "Keep the registry alive for as long as you use its session."
        ])

    // MARK: Between the answer and the client

    /// Takes `answer` on to the client: through the network, a session delegate's challenge or a
    /// delay first when it asks for one.
    func proceed(_ answer: MockRegistry.Answer, _ registry: MockRegistry.Core, attempt: Int, inline: Bool) {
        if case .success(let (response, _)) = answer.result {
            SessionBehaviours.storeCookies(of: response, configuration: exchange.withLock { $0.configuration })
        }
        if answer.passToNetwork {
            passToNetwork(answer.request ?? request, registry: registry, number: answer.logNumber)
            return
        }
        if case .success(let (response, _)) = answer.result, attempt < BasicChallenge.attemptLimit,
            let challenge = BasicChallenge(response)
        {
            ask(challenge, response, answer, registry, attempt: attempt, inline: inline)
            return
        }
        if answer.delay > 0 {
            wait(answer, registry)
            return
        }
        afterWait(answer, registry, inline: inline)
    }

    /// Once an answer's delay has passed: on Linux a redirect to follow goes to the session delegate;
    /// anything else goes to the client (on Apple platforms a redirect too, with `wasRedirectedTo`:
    /// Foundation asks the delegate and loads the new request).
    private func afterWait(_ answer: MockRegistry.Answer, _ registry: MockRegistry.Core, inline: Bool = false) {
        #if canImport(FoundationNetworking)
            if let next = answer.next, case .success(let (response, _)) = answer.result {
                redirect(answer, response, to: next, registry)
                return
            }
        #endif
        wake(with: answer, inline: inline)
    }

    /// Delivers `answer` after its delay, or fails at the request's timeout if that comes first.
    private func wait(_ answer: MockRegistry.Answer, _ registry: MockRegistry.Core) {
        let this = WeakProtocol(self)
        let (remaining, timeout, token): (TimeInterval, TimeInterval, Int?) = exchange.withLock { exchange in
            exchange.waiting = .delay
            defer { exchange.timeoutToken = nil }
            let now = DispatchTime.now()
            let left =
                exchange.deadline == .distantFuture
                ? .infinity
                : Double(
                    exchange.deadline.uptimeNanoseconds
                        &- min(now.uptimeNanoseconds, exchange.deadline.uptimeNanoseconds))
                    / 1e9
            return (left, exchange.timeout, exchange.timeoutToken)
        }
        if let token { Deadlines.shared.cancel(token) }
        var answer = answer
        var delay = answer.delay
        if answer.delay >= remaining {
            answer = MockRegistry.Answer(
                result: .failure(
                    URLError(
                        .timedOut,
                        userInfo: [
                            NSLocalizedDescriptionKey: "MockNetwork: the response's delay of \(answer.delay) s is "
                                + "longer than the request's timeout of \(timeout) s."
                        ])))
            delay = remaining
        }
        let wake = DispatchWorkItem { [answer] in this.value?.afterWait(answer, registry) }
        let started = exchange.withLock { exchange in
            guard exchange.isWorking else { return false }
            exchange.delay = wake
            return true
        }
        if started { DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: wake) }
    }

    /// Fails the request with `URLError(.timedOut)` at its deadline, unless answered before.
    func armTimeout(waitingFor waiting: Exchange.Waiting) {
        let this = WeakProtocol(self)
        let deadline: DispatchTime? = exchange.withLock { exchange in
            exchange.waiting = waiting
            return exchange.deadline == .distantFuture || exchange.timeoutToken != nil ? nil : exchange.deadline
        }
        guard let deadline else { return }
        let token = Deadlines.shared.add(deadline) { this.value?.timedOut() }
        let armed = exchange.withLock { exchange in
            guard exchange.isWorking else { return false }
            exchange.timeoutToken = token
            return true
        }
        if !armed { Deadlines.shared.cancel(token) }
    }

    private func timedOut() {
        let (waiting, timeout) = exchange.withLock { exchange in
            exchange.timeoutToken = nil
            return (exchange.waiting, exchange.timeout)
        }
        let method = request.httpMethod ?? "GET"
        let url = request.url?.absoluteString ?? ""
        let what: String
        switch waiting {
        case .handler, .delay: what = "the handler for \(method) \(url) did not answer"
        case .network: what = "the network did not answer \(method) \(url)"
        case .delegate: what = "the session delegate did not answer the authentication challenge for \(method) \(url)"
        }
        wake(
            with: MockRegistry.Answer(
                result: .failure(
                    URLError(
                        .timedOut,
                        userInfo: [
                            NSLocalizedDescriptionKey:
                                "MockNetwork: \(what) within the request's timeout of \(timeout) s."
                        ]))))
    }

    // MARK: Back to the client

    /// Keeps `answer` and gets back to where the client may be called, to deliver it there.
    /// Later answers (a handler that returns after the timeout) are ignored.
    func wake(with answer: MockRegistry.Answer, inline: Bool = false) {
        let (deliver, token) = exchange.withLock { $0.ready(answer) }
        if let token { Deadlines.shared.cancel(token) }
        guard deliver else { return }
        if inline {
            deliverReady()
            return
        }
        #if canImport(FoundationNetworking)
            // On Linux, calling the client from a thread that does not hold Foundation's queue
            // crashes at times (Foundation reads its task registry without a lock): this thread
            // takes the queue and delivers. Failing that, resuming the task (from a thread that does
            // not hold the queue) makes Foundation call `startLoading` again, where it is delivered.
            // A cancel or suspend whose `stopLoading` Foundation has queued but not run yet does not
            // stop this delivery: Foundation's own HTTP protocol, whose events run on the same queue,
            // can complete a transfer in that window too. (Asking the task's state first cost 2.4k
            // instructions a request.)
            let this = WeakProtocol(self)
            if !FoundationQueue.run({ this.value?.deliverReady() }) {
                DispatchQueue.global().async { this.value?.task?.resume() }
            }
        #else
            guard let thread = exchange.withLock({ $0.clientThread }) else { return }
            let this = WeakProtocol(self)
            thread.perform { this.value?.deliverReady() }
        #endif
    }

    /// Delivers the answer that is ready, unless the request was stopped meanwhile.
    private func deliverReady() {
        guard let answer = exchange.withLock({ $0.take() }) else { return }
        deliver(answer)
    }

    private func deliver(_ answer: MockRegistry.Answer) {
        if let registry = exchange.withLock({ $0.registry }) {
            // Out of flight before the caller can see the answer (and end its test).
            registry.ended(id)
        }
        if let check = Self.clientCallCheck { check(isOnClientContext) }
        switch answer.result {
        case .success(let (response, data)):
            var response = response
            #if canImport(FoundationNetworking)
                if BasicChallenge(response) != nil { response = BasicChallenge.withoutChallenge(response) }
            #endif
            #if !canImport(FoundationNetworking)
                if let next = answer.next {
                    // Foundation asks the session delegate, and loads the new request (in a new protocol,
                    // answered by the handlers) unless told not to; then it stops this one.
                    client?.urlProtocol(self, wasRedirectedTo: next.request, redirectResponse: response)
                }
            #endif
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if let size = answer.chunkSize, data.count > size, wantsChunks {
                var offset = data.startIndex
                while offset < data.endIndex {
                    let end = data.index(offset, offsetBy: size, limitedBy: data.endIndex) ?? data.endIndex
                    client?.urlProtocol(self, didLoad: data.subdata(in: offset..<end))
                    offset = end
                }
            } else if !data.isEmpty {
                client?.urlProtocol(self, didLoad: data)
            }
            client?.urlProtocolDidFinishLoading(self)
        case .failure(let error):
            client?.urlProtocol(self, didFailWithError: error)
        }
    }

    /// Whether the caller is where the client may be called: inside `startLoading` on Linux, on the
    /// thread that ran it on Apple platforms.
    private var isOnClientContext: Bool {
        #if canImport(FoundationNetworking)
            return FoundationQueue.isHeld
        #else
            return exchange.withLock { $0.clientThread?.isCurrent ?? $0.insideStartLoading }
        #endif
    }

    /// For MockNetwork's own tests: called before each delivery with whether it happens where the
    /// client may be called.
    package static var clientCallCheck: (@Sendable (Bool) -> Void)? {
        get { clientCallChecks.withLock { $0 } }
        set { clientCallChecks.withLock { $0 = newValue } }
    }
    private static let clientCallChecks = Locked<(@Sendable (Bool) -> Void)?>(nil)

    /// Whether the body may arrive in pieces: only a session delegate sees every piece; on Linux,
    /// `data(for:)` and completion handlers keep only the last one, and `task?.delegate` is the
    /// session's delegate for those too, so it cannot tell them apart (see ``TaskInternals``).
    private var wantsChunks: Bool {
        #if canImport(FoundationNetworking)
            return TaskInternals.deliversEveryChunk(task)
        #else
            return true
        #endif
    }

    // MARK: A session delegate's challenge

    /// Puts a Basic challenge to the session's delegate, as a server's 401 does: a credential sends
    /// the request through the handlers again with `Authorization: Basic …`; a cancel fails it;
    /// anything else delivers the 401.
    private func ask(
        _ basic: BasicChallenge, _ response: HTTPURLResponse, _ answer: MockRegistry.Answer,
        _ registry: MockRegistry.Core, attempt: Int, inline: Bool
    ) {
        let this = WeakProtocol(self)
        let sender = ChallengeSender { decision in
            this.value?.decided(decision, answer, registry, attempt: attempt)
        }
        let challenge = basic.challenge(for: response, previousFailureCount: attempt, sender: sender)
        #if canImport(FoundationNetworking)
            // Foundation's own handling would retry through libcurl: ask the delegate directly.
            guard let task, let delegate = task.delegate, let session = TaskInternals.session(of: task) else {
                // No one to ask: the 401 goes to the client, from here when this is `startLoading`.
                decided(.without, answer, registry, attempt: attempt, inline: inline)
                return
            }
            armTimeout(waitingFor: .delegate)
            let call = DelegateCall(session: session, task: task, delegate: delegate, challenge: challenge)
            session.delegateQueue.addOperation {
                call.delegate.urlSession(call.session, task: call.task, didReceive: call.challenge) {
                    disposition, credential in
                    sender.decide(ChallengeSender.decision(disposition, credential))
                }
            }
        #else
            // The URL loading system asks the delegate, and answers through `sender`.
            guard let thread = exchange.withLock({ $0.clientThread }) else { return }
            armTimeout(waitingFor: .delegate)
            thread.perform {
                guard let loading = this.value else { return }
                loading.client?.urlProtocol(loading, didReceive: challenge)
            }
        #endif
    }

    private func decided(
        _ decision: ChallengeSender.Decision, _ answer: MockRegistry.Answer, _ registry: MockRegistry.Core,
        attempt: Int,
        inline: Bool = false
    ) {
        switch decision {
        case .without:
            wake(with: answer, inline: inline)
        case .cancel:
            wake(with: MockRegistry.Answer(result: .failure(URLError(.cancelled))))
        case .use(let credential):
            guard var request = answer.request, let authorization = BasicChallenge.authorization(for: credential)
            else {
                wake(with: answer)
                return
            }
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
            let this = WeakProtocol(self)
            armTimeout(waitingFor: .handler)
            registry.runUserCode { [request] in
                var chain = MockRegistry.Chain(request, body: request.httpBody ?? Data())
                guard let answer = registry.answer(&chain) else { return }
                this.value?.proceed(answer, registry, attempt: attempt + 1, inline: false)
            }
        }
    }

    // MARK: The real network

    private func passToNetwork(_ request: URLRequest, registry: MockRegistry.Core, number: Int) {
        exchange.withLock { $0.waiting = .network }
        let this = WeakProtocol(self)
        let started = Date()
        // Not from here: on Linux every session's work queue targets one serial queue, which
        // `startLoading` runs on, and making a task on any session waits for that queue.
        DispatchQueue.global().async {
            let task = Self.network.dataTask(with: request) { data, response, error in
                let result: Result<(HTTPURLResponse, Data), any Error>
                if let response = response as? HTTPURLResponse {
                    result = .success((response, data ?? Data()))
                } else {
                    result = .failure(error ?? URLError(.badServerResponse))
                }
                registry.passedToNetwork(request, number: number, result: result, started: started)
                this.value?.wake(with: MockRegistry.Answer(result: result))
            }
            // Started only if the request was not stopped meanwhile; `stopLoading` cancels it after.
            let start = this.value?.exchange.withLock { exchange in
                guard exchange.isWorking else { return false }
                exchange.passthrough = task
                return true
            }
            if start == true { task.resume() }
        }
    }

    /// The real network, for `MockRegistry.Unmatched.passToNetwork` and recording: no mock
    /// protocol, and no cache, so that what is recorded is what the server sent.
    private static let network: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
}

/// A weak reference to a protocol instance, for the closures that end its wait on other threads.
///
/// `@unchecked Sendable` because `URLProtocol` is not `Sendable`; what those threads do with the
/// instance is safe: they read and write its exchange under its lock, on Linux deliver only while
/// holding Foundation's queue (or call `task?.resume()`, which locks inside), and on Apple platforms
/// hand delivery to the client's thread.
struct WeakProtocol: @unchecked Sendable {
    weak var value: MockURLProtocol?
    init(_ value: MockURLProtocol) { self.value = value }
}

#if canImport(FoundationNetworking)
    /// What the delegate queue needs to put a challenge to a session's delegate.
    ///
    /// `@unchecked Sendable`: Foundation's types here are not `Sendable`, but they are only used on the
    /// delegate queue, as Foundation itself uses them there.
    private struct DelegateCall: @unchecked Sendable {
        let session: URLSession
        let task: URLSessionTask
        let delegate: any URLSessionTaskDelegate
        let challenge: URLAuthenticationChallenge
    }
#endif
