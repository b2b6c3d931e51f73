import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One served request on its way through the handlers to its client.
package final class ServedExchange: Sendable {
    private struct State {
        var cancelled = false
        /// The answer is complete (its end, or instead of it a report or a failure).
        var finished = false
        var handlerTask: Task<Void, Never>?
        /// `started` has been given the `async` handler's task (and kept it, or cancelled it).
        var taskKept = false
        /// The task, waiting to be kept before it runs the handler.
        var taskWaiter: CheckedContinuation<Void, Never>?
        var timer: DispatchWorkItem?
        var passthrough: URLSessionDataTask?
    }

    private let core: MockRegistry.Core
    private let request: URLRequest
    private let isOwnAddress: @Sendable (URL) -> Bool
    /// Whether an app under test forwarded it: such a request never goes to the network.
    private let forwarded: Bool
    private let client: @Sendable () -> ServedClient
    private let events: @Sendable (ServedEvent) -> Void
    private let state = Locked(State())

    init(
        core: MockRegistry.Core, request: URLRequest, forwarded: Bool, isOwnAddress: @escaping @Sendable (URL) -> Bool,
        client: @escaping @Sendable () -> ServedClient, emit: @escaping @Sendable (ServedEvent) -> Void
    ) {
        self.core = core
        self.request = request
        self.forwarded = forwarded
        self.isOwnAddress = isOwnAddress
        self.client = client
        self.events = emit
    }

    /// The server that served it stops. A request whose client has all of its answer, or hung up, is
    /// over, and ends here. Any other goes no further (an `async` handler is cancelled) but stays in
    /// flight until its connection closes (``connectionClosed(cutShort:)``): its client may be hanging
    /// up just then, having given up on its answer, and the server gives it a moment to.
    package func stopServing() {
        switch client() {
        case .hasAll, .left: cancel()
        case .waiting: halt()
        }
    }

    /// The connection that carried the request closed before its answer ended. With `cutShort` the
    /// server's stop closed it while the client waited: the test that owns the registry is told, as
    /// it would be had the test ended with the request open. Otherwise its client left: the request is
    /// over, as one whose client hangs up on a real server is.
    package func connectionClosed(cutShort: Bool) {
        if cutShort, !state.withLock({ $0.finished }) {
            let method = RecordedRequest.method(of: request)
            core.record(
                MockFailure(
                    message: "MockNetwork: the MockServer stopped while \(method) "
                        + "\(MockRegistry.shortened(request.url?.absoluteString ?? "")) was in flight, cutting its "
                        + "answer short. Await every request (release what hold(…) keeps, let a delayed or streamed "
                        + "answer finish) before the server stops.",
                    location: nil))
        }
        cancel()
    }

    /// Whether the request is over for its client though its end has not reached the registry (the
    /// end of a test asks): its client has all of its answer, or hung up; one that hung up ends here,
    /// before the server reads its close (an `async` handler or a `hold` is cancelled).
    private func isOverForClient() -> Bool {
        switch client() {
        case .waiting: return false
        case .hasAll: return true
        case .left:
            cancel()
            return true
        }
    }

    /// The registry's key for this request while it is in flight.
    private var id: Int { ObjectIdentifier(self).hashValue }

    /// Stops working on the request, which is no longer in flight: an `async` handler's task is
    /// cancelled, and so is a request sent on to the network; nothing more is emitted.
    package func cancel() {
        halt()
        core.ended(id)
    }

    /// Stops working on the request as ``cancel()`` does, leaving it in flight.
    private func halt() {
        let (task, timer, passthrough) = state.withLock { state in
            state.cancelled = true
            defer { (state.handlerTask, state.timer, state.passthrough) = (nil, nil, nil) }
            return (state.handlerTask, state.timer, state.passthrough)
        }
        task?.cancel()
        timer?.cancel()
        passthrough?.cancel()
    }

    /// Gives `event` to the door; the request is no longer in flight once its answer is complete.
    func emit(_ event: ServedEvent) {
        switch event {
        case .head, .piece:
            events(event)
        case .end, .unmatched, .failed:
            state.withLock { $0.finished = true }
            events(event)
            core.ended(id)
        }
    }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// The registry is gone: the request fails as one on its session would.
    private func released() {
        guard !isCancelled else { return }
        emit(.failed(MockURLProtocol.releasedError))
        cancel()
    }

    func start(_ chain: MockRegistry.Chain) {
        var chain = chain
        // In flight, as a request on the registry's session is, until its answer is complete or its
        // client leaves: a test that ends before that is told so.
        core.began(
            id, chain.request, task: nil, isOver: { [weak self] in self?.isOverForClient() ?? false },
            release: { [weak self] _ in self?.released() })
        // As inside `startLoading`: an answer that runs no user code right here.
        if let answer = core.answer(&chain, inline: true) {
            proceed(answer)
        } else if chain.picked?.responder.isAsync == true {
            startAsync(chain)
        } else {
            // The server's thread is the connection's own, not a queue other requests wait on: a
            // handler runs right here (within the bound on handlers running at once), and its answer
            // goes out in the request's turn, in one write.
            core.runUserCode(here: true) { [self, chain] in
                var chain = chain
                if let answer = core.answer(&chain) { proceed(answer) } else { startAsync(chain) }
            }
        }
    }

    /// Runs the async responder `chain.picked` holds (a handler's, or `hold`'s), then answers.
    private func startAsync(_ chain: MockRegistry.Chain) {
        guard let picked = chain.picked else { return }
        let responder: @Sendable (URLRequest) async throws -> MockRegistry.Reply
        switch picked.responder {
        case .async(let body), .held(let body): responder = body
        case .sync: return
        }
        let request = picked.recorded.request
        guard !isCancelled else { return }  // the request ended meanwhile
        core.runAsyncUserCode(
            { [self] in
                // No handler runs before the exchange has its task: a request that ends (its client
                // leaves, the server stops) always cancels it, and no `hold` keeps a request after it.
                await awaitTaskKept()
                guard !isCancelled else { return }
                let result: Result<MockRegistry.Reply, any Error>
                do {
                    result = .success(try await responder(request))
                } catch {
                    result = .failure(error)
                }
                guard !isCancelled else { return }
                var chain = chain
                chain.picked?.awaited = result
                if let answer = core.answer(&chain) { proceed(answer) }
            },
            started: { [self] task in
                let (kept, waiter) = state.withLock { state in
                    state.taskKept = true
                    defer { state.taskWaiter = nil }
                    guard !state.cancelled else { return (false, state.taskWaiter) }
                    state.handlerTask = task
                    return (true, state.taskWaiter)
                }
                if !kept { task.cancel() }
                waiter?.resume()
            })
    }

    /// Returns once `started` has been given the handler's task (at once, as a rule: it is called
    /// as the task is made).
    private func awaitTaskKept() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let kept = state.withLock { state in
                if !state.taskKept { state.taskWaiter = continuation }
                return state.taskKept
            }
            if kept { continuation.resume() }
        }
    }

    private func proceed(_ answer: MockRegistry.Answer) {
        guard answer.delay > 0 else {
            deliver(answer)
            return
        }
        after(.now() + answer.delay) { [self] in deliver(answer) }
    }

    /// Runs `work` at `due`, unless the exchange is cancelled first.
    func after(_ due: DispatchTime, _ work: @escaping @Sendable () -> Void) {
        let item = DispatchWorkItem(block: work)
        let armed = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.timer = item
            return true
        }
        if armed { DispatchQueue.global().asyncAfter(deadline: due, execute: item) }
    }

    /// Answers as unmatched, with `message` as the report and a failure of the registry's test: a
    /// request let through to the network that may not go there.
    private func refuse(_ message: String) {
        core.record(MockFailure(message: message, location: nil))
        emit(.unmatched(report: message))
    }

    private func deliver(_ answer: MockRegistry.Answer) {
        guard !isCancelled else { return }
        if let report = answer.unmatchedReport {
            emit(.unmatched(report: report))
            return
        }
        if answer.passToNetwork {
            let outgoing = answer.request ?? request
            if forwarded {
                // The app under test is sandboxed by the test's registry: what it asks for is answered
                // by handlers or fails, as a unit test's client's request on the registry's session.
                let message =
                    "MockNetwork: \(RecordedRequest.method(of: outgoing)) "
                    + "\(MockRegistry.shortened(outgoing.url?.absoluteString ?? "")), forwarded by the app under "
                    + "test, matched no handler. The registry lets such requests through to the network "
                    + "(.passToNetwork, or a recording), but a forwarded request never goes there: "
                    + "it was answered as unmatched.\nFix: register a handler for it in the test."
                refuse(message)
                return
            }
            if let url = outgoing.url, isOwnAddress(url) {
                // The network there is this server: the request would come back to it, again and again.
                let message =
                    "MockNetwork: \(RecordedRequest.method(of: outgoing)) \(MockRegistry.shortened(url.absoluteString)) "
                    + "matched no handler, and the registry lets it through to the network, where its URL is "
                    + "the MockServer's own address: it would come back to the server without end. It was "
                    + "answered 404.\nFix: register a handler for it, or serve the registry as the origin the "
                    + "client means (MockServer(serving:as: [\"https://api.example.com\"])), so that a request "
                    + "let through goes there."
                refuse(message)
                return
            }
            NetworkPassage.send(
                outgoing, for: core, number: answer.logNumber,
                keep: { [self] task in
                    state.withLock { state in
                        guard !state.cancelled else { return false }
                        state.passthrough = task
                        return true
                    }
                },
                done: { [self] result in
                    state.withLock { $0.passthrough = nil }
                    var passed = MockRegistry.Answer(result: Self.decoded(result))
                    passed.request = answer.request ?? request
                    deliver(passed)
                })
            return
        }
        switch answer.result {
        case .failure(let error):
            emit(.failed(error))
        case .success(let (response, data)):
            let streams = answer.pacing != nil && !data.isEmpty
            // A `HEAD` answer has no body, but the length of the one it leaves out: the length its
            // response names, or none (a body over time, whose `GET` has none, RFC 9110, 8.6).
            let length =
                answer.request?.httpMethod == "HEAD"
                ? response.value(forHTTPHeaderField: "Content-Length").flatMap { Int($0) }
                : (answer.pacing?.sendsLength ?? true) ? data.count : nil
            emit(.head(status: response.statusCode, headers: Self.fields(of: response), length: length))
            if let pacing = answer.pacing, streams {
                let stream = BodyStream(data, pacing, idleLimit: .infinity, resourceLimit: nil, everyPiece: true)
                sendDue(stream)
            } else {
                if !data.isEmpty { emit(.piece(data)) }
                emit(.end)
            }
        }
    }
}
