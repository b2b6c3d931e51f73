import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Between the answer and the client: the network, a session delegate's challenge or a delay when
/// the answer asks for one, and the request's timeout, which MockNetwork enforces meanwhile.
extension MockURLProtocol {
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
        var answer = answer
        // As the session's cache leaves it, once it is sure to go out (not timed out during its delay).
        if let caching = exchange.withLock({ $0.caching }) {
            answer = caching.settled(answer, request: answer.request ?? request, last: answer.next == nil)
        }
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
        let (remaining, timeout, resource, token): (TimeInterval, TimeInterval, TimeInterval, Int?) = exchange.withLock
        {
            exchange in
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
            return (left, exchange.timeout, exchange.resourceTimeout, exchange.timeoutToken)
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
                            NSLocalizedDescriptionKey: Timeouts.delayMessage(
                                delay: answer.delay, remaining: remaining, timeout: timeout, resourceTimeout: resource)
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

    /// Fails the request with `URLError(.timedOut)` at its deadline, unless answered before; with
    /// `waiting`, notes what the request waits for (for the message).
    func armTimeout(waitingFor waiting: Exchange.Waiting? = nil) {
        let this = WeakProtocol(self)
        let deadline: DispatchTime? = exchange.withLock { exchange in
            if let waiting { exchange.waiting = waiting }
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
        enum Expiry {
            case expired(Exchange.Waiting, TimeInterval, queuedFor: TimeInterval?)
            /// The deadline moved later since it was armed.
            case notYet
        }
        let expiry = exchange.withLock { exchange -> Expiry in
            exchange.timeoutToken = nil
            if DispatchTime.now() < exchange.deadline { return .notYet }
            let queued = exchange.queuedSince.map {
                Double(DispatchTime.now().uptimeNanoseconds - $0.uptimeNanoseconds) / 1e9
            }
            return .expired(exchange.waiting, exchange.timeout, queuedFor: queued)
        }
        guard case .expired(let waiting, let timeout, let queuedFor) = expiry else {
            armTimeout()
            return
        }
        let method = request.httpMethod ?? "GET"
        let url = request.url?.absoluteString ?? ""
        let message: String
        if let queuedFor, let registry = exchange.withLock({ $0.registry }) {
            message = Self.queuedTimeoutMessage(
                "\(method) \(url)", timeout: timeout, waited: queuedFor, share: registry.share)
            registry.record(MockFailure(message: message, location: nil))
        } else {
            let what: String
            switch waiting {
            case .handler, .delay: what = "the handler for \(method) \(url) did not answer"
            case .held: what = "\(method) \(url) was held by hold(_:) and not released"
            case .network: what = "the network did not answer \(method) \(url)"
            case .delegate:
                what = "the session delegate did not answer the authentication challenge for \(method) \(url)"
            }
            message = "MockNetwork: \(what) within the request's timeout of \(timeout) s."
        }
        wake(
            with: MockRegistry.Answer(
                result: .failure(URLError(.timedOut, userInfo: [NSLocalizedDescriptionKey: message]))))
    }

    /// Why a request timed out before its handler started: its registry's own handlers held every
    /// thread of its share (named, the longest-running first), or, where `async` handlers run on Swift
    /// concurrency's pool, the pool ran nothing.
    static func queuedTimeoutMessage(
        _ what: String, timeout: TimeInterval, waited: TimeInterval, share: HandlerShare
    ) -> String {
        let start =
            "MockNetwork: \(what) timed out (the request's timeout of \(Timeouts.seconds(timeout))) before its "
            + "handler started: it waited \(Timeouts.seconds((waited * 10).rounded() / 10))"
        let (running, width) = share.occupancy
        guard running >= width else {
            return start
                + " for Swift concurrency's pool to run it. Where task executors are missing (macOS 13–14, "
                + "iOS 16–17), `async` handlers, holds and sockets' handlers run on that pool, so a test that "
                + "blocks the pool's threads (a synchronous wait for a request, a semaphore) keeps them from "
                + "starting. Await the request in the test instead, or register a synchronous handler."
        }
        let (names, more) = share.longestRunning()
        let list = names.joined(separator: ", ") + (more > 0 ? ", and \(more) more" : "")
        return start
            + " behind its own registry's handlers, which held all \(width) of its threads: \(list). A handler "
            + "that blocks its thread (a semaphore, a sleep, a synchronous wait for a request) holds one until "
            + "it returns: let those handlers end, or make them `async` and await instead of blocking."
    }
}
