import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    extension MockURLProtocol {
        /// Puts a mocked redirect to the session delegate, as a server's exchange does, then follows
        /// it with the request the delegate hands back, or delivers the redirect response itself when
        /// the delegate hands back none. (Foundation on Linux cannot take `wasRedirectedTo` from a
        /// custom protocol, so MockNetwork asks the delegate itself, on the session's delegate queue.)
        func redirect(
            _ answer: MockRegistry.Answer, _ response: HTTPURLResponse, to next: MockRegistry.Chain,
            _ registry: MockRegistry.Core
        ) {
            let this = WeakProtocol(self)
            let decide: @Sendable (URLRequest?) -> Void = { request in
                this.value?.redirected(to: request, answer, next, registry)
            }
            guard let task, let delegate = task.delegate, let session = TaskInternals.session(of: task) else {
                decide(next.request)
                return
            }
            armTimeout(waitingFor: .delegate)
            let call = RedirectCall(session: session, task: task, delegate: delegate, response: response)
            let request = next.request
            session.delegateQueue.addOperation {
                call.delegate.urlSession(
                    call.session, task: call.task, willPerformHTTPRedirection: call.response, newRequest: request,
                    completionHandler: decide)
            }
        }

        /// The delegate's decision: follow with `request`, or deliver the redirect response (`nil`).
        private func redirected(
            to request: URLRequest?, _ answer: MockRegistry.Answer, _ next: MockRegistry.Chain,
            _ registry: MockRegistry.Core
        ) {
            guard exchange.withLock({ $0.isWorking }) else { return }
            guard let request else {
                var final = answer
                final.next = nil
                wake(with: final)
                return
            }
            var chain = next
            if request != next.request {
                chain.request = request
                if let body = request.httpBody { chain.body = body }
            }
            let configuration = exchange.withLock { $0.configuration }
            chain.request = SessionBehaviours.withCookiesAfterRedirect(chain.request, configuration: configuration)
            // Each hop is looked up in the session's cache, and its answer stored, as a request of its
            // own: Apple's loading does so with a new protocol per hop, and so MockNetwork does here.
            switch HTTPCaching.lookUp(&chain.request, configuration: configuration) {
            case .stored(let response, let data)?:
                wake(with: MockRegistry.Answer(result: .success((response, data))))
                return
            case .unavailable(let error)?:
                wake(with: MockRegistry.Answer(result: .failure(error)))
                return
            case .load(let caching)?: exchange.withLock { $0.caching = caching }
            case nil: break
            }
            exchange.withLock { $0.waiting = .handler }
            answerElsewhere(chain, registry, attempt: 0)
        }
    }

    extension MockURLProtocol {
        /// Tells a task's session delegate that its body was sent, as a server exchange does before
        /// the response (Foundation on Linux does it only in its own HTTP protocol). Only for tasks
        /// whose events go to the delegate; the async and completion-handler forms get none there.
        func reportUpload(of bytes: Int) {
            // The delegate first: `callsDelegate` reads Foundation's task registry through `Mirror`
            // (about 100,000 instructions), and a session without a delegate (the registry's own)
            // needs no answer from it.
            guard let task, let delegate = task.delegate, TaskInternals.callsDelegate(task),
                let session = TaskInternals.session(of: task)
            else { return }
            let call = UploadCall(session: session, task: task, delegate: delegate)
            let count = Int64(bytes)
            session.delegateQueue.addOperation {
                call.delegate.urlSession(
                    call.session, task: call.task, didSendBodyData: count, totalBytesSent: count,
                    totalBytesExpectedToSend: count)
            }
        }
    }

    /// What the delegate queue needs to tell a session's delegate of a sent body.
    private struct UploadCall: @unchecked Sendable {  // used once, on the delegate queue
        let session: URLSession
        let task: URLSessionTask
        let delegate: any URLSessionTaskDelegate
    }

    /// What the delegate queue needs to put a redirect to a session's delegate.
    private struct RedirectCall: @unchecked Sendable {  // used once, on the delegate queue
        let session: URLSession
        let task: URLSessionTask
        let delegate: any URLSessionTaskDelegate
        let response: HTTPURLResponse
    }
#endif
