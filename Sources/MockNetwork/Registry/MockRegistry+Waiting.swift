import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Awaiting requests: the next one that matches, for code that fires a request and forgets it.
extension MockRegistry {
    /// The earliest request that `match` describes and that no earlier call returned, waiting for
    /// one to come if none has. A request made before the call counts, so a test never misses one
    /// that the code under test sent early; each call returns the next, in the order they arrived.
    ///
    /// ```swift
    /// model.trackOpen()   // fires a POST and does not wait for it
    /// let sent = try await mocks.nextRequest(matching: .url("https://api.example.com/analytics").method("POST"))
    /// #expect(sent.body == Data(#"{"event":"open"}"#.utf8))
    /// ```
    ///
    /// A request is answered by the handlers as usual; this only watches. (Register a handler for
    /// it too, or it fails as unmatched.) Only requests still in ``requests`` are looked at. A
    /// GraphQL match returns a batch (a JSON array of operations) one of whose operations fits it,
    /// once, as ``requests(matching:fileID:filePath:line:column:)`` does.
    ///
    /// Time in which Swift's concurrency pool ran nothing it was given (other tests held its threads,
    /// so the task that makes the request could not run either) does not count toward `timeout`.
    ///
    /// - Throws: ``MockNetworkError/requestNotSeen(_:)`` when none comes within `timeout` seconds,
    ///   naming what was registered and what was requested.
    public func nextRequest(matching match: RequestMatch, timeout: Duration) async throws -> RecordedRequest {
        try await nextRequest(matching: match, timeout: BodyPacing.seconds(timeout))
    }

    /// The same, with the timeout in seconds (`timeout: 2`; the `Duration` form reads `timeout: .seconds(2)`).
    public func nextRequest(matching match: RequestMatch, timeout: TimeInterval = 5) async throws -> RecordedRequest {
        guard timeout >= 0 else {  // false for nan too
            throw MockNetworkError.requestNotSeen(
                "nextRequest(matching:timeout:) was given a timeout of \(timeout) s. Give a number of seconds of 0 or "
                    + "more (.infinity waits until the request comes or the task is cancelled).")
        }
        if let refusal = match.refusal(by: "nextRequest(matching:timeout:)") {
            throw MockNetworkError.requestNotSeen(String(refusal.dropFirst("MockNetwork: ".count)))
        }
        let clock = PoolClock()
        let start = DispatchTime.now()
        var over = false
        while true {
            try Task.checkCancellation()
            let (candidates, total) = state.withLock { state in
                let first = state.log.total - state.log.all.count
                let kept = state.log.all.enumerated().map { (first + $0.offset, $0.element) }
                return (kept.filter { !state.taken.contains($0.0) }, state.log.total)
            }
            for (number, recorded) in candidates
            where match.checked(recorded).count > 0 {
                if state.withLock({ $0.taken.insert(number).inserted }) { return recorded }
            }
            if over { throw MockNetworkError.requestNotSeen(notSeenReport(match, timeout: timeout, clock.note)) }
            let deadline = clock.deadline(start: start, timeout: timeout)
            if DispatchTime.now() >= deadline {
                // Looked at once more after the pool's turn and its grace, then it throws.
                over = await clock.isOver(start: start, timeout: timeout)
                continue
            }
            await requestLogged(after: total, until: deadline)
        }
    }

    /// Returns once a request past the first `total` is logged, at `deadline`, or on a cancel.
    private func requestLogged(after total: Int, until deadline: DispatchTime) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let state = self.state
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard state.log.total == total, !Task.isCancelled else { return false }
                    state.logWaiters[id] = continuation
                    return true
                }
                guard waits else {
                    continuation.resume()
                    return
                }
                guard deadline != .distantFuture else { return }
                DispatchQueue.global().asyncAfter(deadline: deadline) {
                    state.withLock { $0.logWaiters.removeValue(forKey: id) }?.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.logWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Whether a `nextRequest(matching:timeout:)` call is waiting now (for MockNetwork's tests).
    package var hasRequestWaiters: Bool {
        state.withLock { !$0.logWaiters.isEmpty }
    }

    private func notSeenReport(_ match: RequestMatch, timeout: TimeInterval, _ note: String) -> String {
        let (registered, seen, taken) = state.withLock { state in
            (
                state.routes.values.sorted { $0.id < $1.id }.map(\.match.description),
                state.log.all.suffix(10).map { "\($0.method) \($0.url.absoluteString)" },
                state.taken.count
            )
        }
        return "no request matching \(match.description) came within \(timeout) s\(note). "
            + "Registered: \(registered.isEmpty ? "nothing" : registered.joined(separator: "; ")). "
            + "Requested: \(seen.isEmpty ? "nothing" : seen.joined(separator: "; "))"
            + (taken > 0 ? " (\(taken) returned by earlier nextRequest calls)." : ".")
            + " Check the URL, method and rules of the match, or give a longer timeout."
    }
}

extension MockRegistry.State {
    /// Logs `recorded`; returns its number, and wakes whoever awaits the next request.
    mutating func logRequest(_ recorded: RecordedRequest) -> Int {
        let number = log.append(recorded)
        if !logWaiters.isEmpty {
            // Resuming only schedules the waiting task: no user code runs here.
            for waiter in logWaiters.values { waiter.resume() }
            logWaiters.removeAll()
        }
        return number
    }
}
