import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A mocked 401 with a Basic challenge, put to the session's delegate as a server's is (see
/// ``BasicChallenge``).
extension MockURLProtocol {
    /// Puts a Basic challenge to the session's delegate, as a server's 401 does: a credential sends
    /// the request through the handlers again with `Authorization: Basic …`; a cancel fails it;
    /// anything else delivers the 401.
    func ask(
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
        case .authorize(let authorization):
            guard var request = answer.request else {
                wake(with: answer)
                return
            }
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
            armTimeout(waitingFor: .handler)
            answerElsewhere(
                MockRegistry.Chain(request, body: request.httpBody ?? Data()), registry, attempt: attempt + 1)
        }
    }
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
