import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a test reads back: the requests, the handlers, call counts and failures.
extension MockRegistry {
    /// The requests this registry received, answered or not, in the order they arrived: all of
    /// them, or the latest ``requestLogLimit`` when there were more.
    public var requests: [RecordedRequest] {
        state.withLock { $0.log.all }
    }

    /// The handlers' descriptions (`GET https://…`), in the order they were registered.
    public var registered: [String] {
        state.withLock { state in state.routes.values.sorted { $0.id < $1.id }.map(\.match.description) }
    }

    /// How many requests the handlers registered for exactly `url` have answered.
    public func callCount(for url: String) -> Int {
        guard let url = URLKeys.absoluteString(url) else { return 0 }
        let key = URLKeys.key(url, .exact)
        return state.withLock { state in
            state.routes.values.filter { $0.urlKey == key }.reduce(0) { $0 + $1.calls }
        }
    }

    /// Problems noticed so far and not yet reported: unmatched requests, invalid registrations,
    /// invalid responses.
    public var failures: [MockFailure] {
        state.withLock { $0.failures }
    }

    /// Takes the failures noticed so far, so that they are not reported at the end of the test.
    ///
    /// For a test that expects one, say that its client handles a request no handler matches:
    /// ```swift
    /// _ = try? await client.load()  // asks, on purpose, for a URL nothing answers
    /// let failures = mocks.takeFailures()
    /// XCTAssertEqual(failures.count, 1)
    /// XCTAssertTrue(failures[0].message.hasPrefix("MockNetwork: no handler for GET"))
    /// ```
    /// A handler's own failed `#expect` or `XCTAssert` is the test's, not the registry's: to test
    /// for one, wrap the check inside the handler in `withKnownIssue` (or `XCTExpectFailure`), or
    /// keep what the handler saw and assert on it after the request.
    public func takeFailures() -> [MockFailure] {
        state.withLock { state in
            defer { state.failures.removeAll() }
            return state.failures
        }
    }

    /// Failures for the end of a test, in the order to report them: first it waits, bounded, for
    /// the requests the test started (see ``settle()``), then takes what was noticed (unmatched
    /// requests, invalid registrations and responses), then adds handlers whose expected number of
    /// calls was not met and requests still in flight, and what stops with the test and is still open
    /// (a served WebSocket, after its own bounded wait). Forgets all it returns.
    ///
    /// Reading what was noticed only after the wait matters: a request resumed just before the end
    /// records "no handler" during the wait.
    package func settledFailures() -> [MockFailure] {
        let open = settle()
        let ending = stoppingFailures()
        let noticed = takeFailures()
        return noticed + endOfTestFailures(open: open) + ending
    }

    /// As ``settledFailures()``, for an end of a test on the concurrency pool: it awaits the requests
    /// the test started, holding no thread.
    package func awaitSettledFailures() async -> [MockFailure] {
        let open = await awaitSettled()
        let ending = await awaitStoppingFailures()
        let noticed = takeFailures()
        return noticed + endOfTestFailures(open: open) + ending
    }

    /// Failures for the end of a test: handlers whose expected number of calls was not met, and
    /// requests still in flight, counting those resumed that have not reached MockNetwork yet.
    /// Forgets the expectations it reported. Waits as ``settledFailures()`` does, but does not take
    /// the failures noticed meanwhile.
    package func endOfTestFailures() -> [MockFailure] {
        endOfTestFailures(open: settle())
    }

    private func endOfTestFailures(open: [URLRequest]) -> [MockFailure] {
        // Requests a gate still holds are reported as held (and end), not as in flight.
        let gates = state.withLock { $0.gates }
        let held = gates.flatMap(\.held).map { MockRegistry.shortened("\($0.method) \($0.url.absoluteString)") }
        let heldFailures = gates.flatMap { $0.endOfTest() }
        return state.withLock { state in
            var out: [MockFailure] = heldFailures + unusedHandlerFailures(state)
            for route in state.routes.values.sorted(by: { $0.id < $1.id }) {
                guard let expected = route.expectedCalls, expected != route.calls else { continue }
                out.append(
                    MockFailure(
                        message: "MockNetwork: expected \(expected) call\(expected == 1 ? "" : "s") to "
                            + "\(route.match.description), got \(route.calls). Check what the code under test "
                            + "requests, or change expectedCalls.",
                        location: route.location))
                state.routes[route.id]?.expectedCalls = nil
            }
            if let inFlight = Self.inFlightFailure(open, besides: held) { out.append(inFlight) }
            return out
        }
    }

    /// The failure for `open` requests still in flight at the end of a test (those a gate holds,
    /// `held`, are reported as held), or `nil` when there are none.
    private static func inFlightFailure(_ open: [URLRequest], besides held: [String]) -> MockFailure? {
        var pending = open.map {
            MockRegistry.shortened("\(RecordedRequest.method(of: $0)) \($0.url?.absoluteString ?? "")")
        }
        .sorted()
        for request in held {
            if let index = pending.firstIndex(of: request) { pending.remove(at: index) }
        }
        guard !pending.isEmpty else { return nil }
        return MockFailure(
            message: "MockNetwork: \(pending.count) request\(pending.count == 1 ? " was" : "s were") still in "
                + "flight when the test ended: \(pending.joined(separator: ", ")). Await every request "
                + "(or cancel it) before the test returns; delayed responses and bodies still arriving "
                + "keep a request open.",
            location: nil)
    }

    /// What tasks the test left running brought after its end was reported: it waits, bounded, for the
    /// requests open now (see ``settle()``), then takes what was noticed (an unmatched request, say).
    /// The end's checks (expected calls, handlers never called, requests in flight) are not made again.
    package func failuresSinceEnd() -> [MockFailure] {
        _ = settle()
        return takeFailures()
    }

    /// Where the first handler still registered was registered: a place in the test's own file.
    package var firstRegistration: SourceLocation? {
        state.withLock { state in state.routes.values.filter { $0.rank == .test }.min { $0.id < $1.id }?.location }
    }

    func routeCalls(_ id: Int) -> Int {
        state.withLock { $0.routes[id]?.calls ?? 0 }
    }

    /// Where this registry's handlers run: `nil` for a thread of MockNetwork's own (never
    /// Foundation's queue), or a test's task tree (the `.mockNetwork` trait).
    package var handlerRunner: (any HandlerRunner)? {
        get { core.handlerRunner }
        set { core.handlerRunner = newValue }
    }

    /// The registry's share of the threads handlers run on: a ``TestTaskRunner`` runs them there.
    package var handlerShare: HandlerShare { core.share }

    /// Runs `work`, a product's user code (a socket's handler), in a task where this registry's
    /// `async` handlers run, counted in its share, and hands that task to `started`.
    package func runHandlerTask(
        _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void
    ) {
        core.runAsyncUserCode(work, started: started)
    }

    /// The test that owns this registry, `test`, has ended: a request made from now on fails at once
    /// (and says so in the log), as nothing can fail that test any more, and the next must not.
    package func testEnded(_ test: String) {
        core.endedTestName.withLock { $0 = test }
    }

    /// Ends what is still in flight when the test that owns this registry ends (a delayed answer, a
    /// body still arriving), on any session: nothing of the test's goes on into the next.
    package func endRequestsInFlight() {
        core.endInFlight(with: MockURLProtocol.testEndedError)
    }

    /// Cancels the tasks whose protocol Foundation made and has not started yet. Where a session's
    /// task list cannot be asked for (Linux: swift-corelibs-foundation's `getAllTasks` reads it on
    /// the delegate queue while the session's own queue changes it, and crashed a test process),
    /// these are the registry's tasks still to end at a test's end: those begun end with
    /// ``endRequestsInFlight()``.
    package func cancelTasksNotBegun() {
        let tasks = core.state.withLock { $0.created.values.compactMap(\.task?.task) }
        for task in tasks { task.cancel() }
    }

    package func record(_ failure: MockFailure) {
        core.record(failure)
    }
}
