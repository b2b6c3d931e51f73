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
        waitForThread()
        registry.runUserCode { [chain] in
            this.value?.gotThread()
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
                this.value?.gotThread()
                let result: Result<MockRegistry.Reply, any Error>
                do {
                    result = .success(try await responder(request))
                } catch {
                    result = .failure(error)
                }
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

    /// The handler got its thread: its timeout comes later by the time it waited, and is armed again
    /// if it came meanwhile.
    private func gotThread() {
        let rearm = exchange.withLock { exchange -> Bool in
            guard let since = exchange.queuedSince else { return false }
            exchange.queuedSince = nil
            if exchange.deadline != .distantFuture {
                let waited = DispatchTime.now().uptimeNanoseconds - since.uptimeNanoseconds
                exchange.deadline = DispatchTime(uptimeNanoseconds: exchange.deadline.uptimeNanoseconds + waited)
            }
            defer { exchange.deadlinePassedWhileQueued = false }
            return exchange.deadlinePassedWhileQueued && exchange.isWorking
        }
        if rearm { armTimeout() }
    }
}
