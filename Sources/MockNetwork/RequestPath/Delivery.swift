import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Back to the client: an answer is kept, taken to where the client may be called (Foundation's
/// queue on Linux, the thread that ran `startLoading` on Apple platforms) and delivered there.
extension MockURLProtocol {
    /// Keeps `answer` and gets back to where the client may be called, to deliver it there.
    /// Later answers (a handler that returns after the timeout) are ignored.
    func wake(with answer: MockRegistry.Answer, inline: Bool = false) {
        let (deliver, token, handlerTask) = exchange.withLock { $0.ready(answer) }
        if let token { Deadlines.shared.cancel(token) }
        // Outside the lock: cancelling runs the handler's cancellation handlers at once.
        handlerTask?.cancel()
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

    func deliver(_ answer: MockRegistry.Answer) {
        var streams = answer.pacing != nil
        if case .failure = answer.result { streams = false }
        if !streams, let registry = exchange.withLock({ $0.registry }) {
            // Out of flight before the caller can see the answer (and end its test); a streamed body
            // stays in flight until its end (`deliverDuePieces`): a test that ends before is told so.
            registry.ended(id)
        }
        if let check = Self.clientCallCheck { check(isOnClientContext) }
        switch answer.result {
        case .success(let (response, data)):
            #if canImport(FoundationNetworking)
                let response = BasicChallenge(response) == nil ? response : BasicChallenge.withoutChallenge(response)
            #else
                if let next = answer.next {
                    // Foundation asks the session delegate, and loads the new request (in a new protocol,
                    // answered by the handlers) unless told not to; then it stops this one. The new
                    // protocol's chain goes on from this one's count, with the cookies the storage has now.
                    let request = SessionBehaviours.withCookiesAfterRedirect(
                        next.request, configuration: exchange.withLock { $0.configuration })
                    client?.urlProtocol(
                        self, wasRedirectedTo: next.trail.attached(to: request), redirectResponse: response)
                }
            #endif
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if let pacing = answer.pacing {
                startStream(data, pacing)
                return
            }
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
            client?.urlProtocol(self, didFailWithError: SelfDescribingError.describing(error))
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
    var wantsChunks: Bool {
        #if canImport(FoundationNetworking)
            return TaskInternals.deliversEveryChunk(task)
        #else
            return true
        #endif
    }
}
