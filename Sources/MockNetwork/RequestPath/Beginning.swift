import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The start of a request, inside `startLoading`: its registry, its body and the session's
/// behaviours; then an answer that runs no user code at once, or the hop to a handler's thread.
extension MockURLProtocol {
    func begin() {
        guard let (registry, registryConfiguration) = MockRegistry.Directory.destination(of: type(of: self)) else {
            finishNow(MockRegistry.Answer(result: .failure(Self.releasedError)))
            return
        }
        if let test = registry.endedTest {
            finishNow(MockRegistry.Answer(result: .failure(Self.lateError(request, test: test))))
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
        // The settings of the session that made the task (a client may have copied the registry's
        // configuration and changed the copy); the registry's own when that cannot be read.
        let session = task.flatMap(TaskInternals.session(of:))
        if let session { registry.noteSession(session) }
        let configuration = session?.configuration ?? registryConfiguration
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
        var caching: HTTPCaching?
        switch HTTPCaching.lookUp(&request, configuration: configuration) {
        case .stored(let response, let data)?:
            // As from a server's answer kept earlier: the handlers and the log never see it.
            finishNow(MockRegistry.Answer(result: .success((response, data))))
            return
        case .unavailable(let error)?:
            finishNow(MockRegistry.Answer(result: .failure(error)))
            return
        case .load(let found)?: caching = found
        case nil: break
        }

        // In flight from here until delivered or cancelled.
        let this = WeakProtocol(self)
        registry.began(id, request, task: task) { error in this.value?.end(with: error) }
        let timeout = Timeouts.timeout(of: request, configuration: configuration)
        let resourceTimeout = Timeouts.resourceTimeout(of: configuration)
        exchange.withLock { exchange in
            exchange.resourceTimeout = resourceTimeout
            if resourceTimeout < .infinity { exchange.resourceDeadline = .now() + resourceTimeout }
            exchange.registry = registry
            exchange.configuration = configuration
            exchange.caching = caching
            exchange.timeout = timeout
            if timeout < .infinity { exchange.deadline = .now() + timeout }
            #if !canImport(FoundationNetworking)
                exchange.clientThread = .current()
            #endif
        }

        #if canImport(FoundationNetworking)
            var chain = MockRegistry.Chain(request, body: body)
        #else
            // A redirect Foundation followed for an earlier instance goes on with that chain's count.
            var chain = MockRegistry.Chain(request, body: body, trail: RedirectTrail(of: self.request))
        #endif
        if let answer = registry.answer(&chain, inline: true) {
            proceed(answer, registry, attempt: 0, inline: true)
            return
        }
        armTimeout(waitingFor: .handler)
        answerElsewhere(chain, registry, attempt: 0)
    }

    /// Fails or answers at once, from inside `startLoading`, before the request was begun.
    private func finishNow(_ answer: MockRegistry.Answer) {
        exchange.withLock { $0.phase = .done }
        deliver(answer)
    }

    /// Ends the request with `error`: its answer if none was delivered yet, else what is left of its
    /// streamed body.
    func end(with error: URLError) {
        if !cutStream(with: error) { wake(with: MockRegistry.Answer(result: .failure(error))) }
    }

    /// What a request made after the test that owns its registry ended gets: no test can fail for it
    /// any more (the next one must not), so the client is told, and so is the log.
    static func lateError(_ request: URLRequest, test: String) -> URLError {
        let message =
            "MockNetwork: \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") came after its test, "
            + "\(test), ended, and was not answered. No test fails for it: await the work that makes it (or cancel "
            + "it) before the test returns."
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: message])
    }

    /// What a request still open when its test ended gets (after the test was failed for it).
    static let testEndedError = URLError(
        .cancelled,
        userInfo: [
            NSLocalizedDescriptionKey: "MockNetwork: the test that owns this registry ended while this request was "
                + "still open (its answer not delivered, or its body still arriving): the test failed for it. Await "
                + "the request, or cancel it, before the test returns."
        ])

    static let releasedError = URLError(
        .resourceUnavailable,
        userInfo: [
            NSLocalizedDescriptionKey: "MockNetwork: the MockRegistry behind this session was released. "
                + "Keep the registry alive for as long as you use its session."
        ])
}
