import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answering off Foundation's queue: a synchronous handler where the registry's handlers run, an
/// `async` one in a task of its own, which the request cancels when it ends first (a cancel, its
/// timeout, the registry released).
extension MockURLProtocol {
    /// Answers `chain` away from Foundation's queue and takes the answer on (`proceed`).
    func answerElsewhere(_ chain: MockRegistry.Chain, _ registry: MockRegistry.Core, attempt: Int) {
        if chain.picked?.responder.isAsync == true {
            // Picked already (inside `startLoading`): its task starts from here, with no hop first.
            startAsync(chain, registry, attempt: attempt)
            return
        }
        let this = WeakProtocol(self)
        let request = request
        waitForThread()
        registry.runUserCode { [chain] in
            // A request that ended while it waited (its timeout, a cancel) runs no handler.
            guard this.value?.gotThread() == true else { return }
            let token = registry.share.started(request)
            defer { registry.share.ended(token) }
            var chain = chain
            if let answer = registry.answer(&chain) {
                this.value?.proceed(answer, registry, attempt: attempt, inline: false)
            } else {
                this.value?.startAsync(chain, registry, attempt: attempt)
            }
        }
    }

    /// Runs the async responder `chain.picked` holds, then answers with what it gave.
    private func startAsync(_ chain: MockRegistry.Chain, _ registry: MockRegistry.Core, attempt: Int) {
        guard let picked = chain.picked else { return }
        let responder: @Sendable (URLRequest) async throws -> MockRegistry.Reply
        switch picked.responder {
        case .async(let body): responder = body
        case .held(let body):
            responder = body
            exchange.withLock { $0.waiting = .held }
        case .sync: return
        }
        let this = WeakProtocol(self)
        let request = picked.recorded.request
        waitForThread()
        registry.runAsyncUserCode(
            {
                guard this.value?.gotThread() == true else { return }
                let token = registry.share.started(request)
                let result: Result<MockRegistry.Reply, any Error>
                do {
                    result = .success(try await responder(request))
                } catch {
                    result = .failure(error)
                }
                registry.share.ended(token)
                // A request that ended meanwhile (and cancelled this task) takes no answer; one still
                // open takes it, even when something else cancelled the handler's task.
                guard let loading = this.value, loading.exchange.withLock({ $0.isWorking }) else { return }
                var chain = chain
                chain.picked?.awaited = result
                guard let answer = registry.answer(&chain) else { return }
                loading.proceed(answer, registry, attempt: attempt, inline: false)
            },
            started: { task in
                let keep = this.value?.exchange.withLock { exchange -> Bool in
                    guard exchange.isWorking else { return false }
                    exchange.handlerTask = task
                    return true
                }
                if keep != true { task.cancel() }
            })
    }

    /// Notes that the request's handler waits for a thread of its registry's share from now.
    private func waitForThread() {
        exchange.withLock { $0.queuedSince = .now() }
    }

    /// The handler got its thread (or, an `async` one, its first turn on the pool); whether the request
    /// still waits for it. The time it waited counts against the request's timeout, as a client's does
    /// (a timeout that came meanwhile says why: see `timedOut`).
    private func gotThread() -> Bool {
        exchange.withLock { exchange in
            exchange.queuedSince = nil
            return exchange.isWorking
        }
    }
}
