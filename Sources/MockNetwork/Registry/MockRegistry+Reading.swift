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
    /// calls was not met and requests still in flight. Forgets all it returns.
    ///
    /// Reading what was noticed only after the wait matters: a request resumed just before the end
    /// records "no handler" during the wait.
    package func settledFailures() -> [MockFailure] {
        let open = settle()
        let noticed = takeFailures()
        return noticed + endOfTestFailures(open: open)
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
            var pending = open.map {
                MockRegistry.shortened("\(RecordedRequest.method(of: $0)) \($0.url?.absoluteString ?? "")")
            }
            .sorted()
            for request in held {
                if let index = pending.firstIndex(of: request) { pending.remove(at: index) }
            }
            if !pending.isEmpty {
                out.append(
                    MockFailure(
                        message:
                            "MockNetwork: \(pending.count) request\(pending.count == 1 ? " was" : "s were") still in "
                            + "flight when the test ended: \(pending.joined(separator: ", ")). Await every request "
                            + "(or cancel it) before the test returns; delayed responses keep a request open.",
                        location: nil))
            }
            return out
        }
    }

    /// Waits, bounded, until every request the test started has ended, and returns those still open.
    ///
    /// What counts as started, from the earliest moment MockNetwork can know it, without a race:
    /// - a task of a session that sent this registry requests (its own ``session``, sessions made
    ///   from ``configuration`` or a copy) that is running: Foundation lists it from `resume()` on;
    /// - a request whose protocol Foundation made (on Linux inside `resume()` itself, which covers
    ///   the first request of a new session too), until it begins;
    /// - a request that began and has not ended.
    /// Requests not begun yet are waited for up to two seconds (a busy machine may take a while to
    /// call `startLoading`); once only begun ones remain, they get 50 ms to end (one the test did
    /// not await may be just answered). A request a gate holds counts as ended here.
    func settle() -> [URLRequest] {
        var tasks = Self.runningTasks(of: [session] + core.notedSessions)
        let start = DispatchTime.now()
        var begunOnlySince: DispatchTime?
        while true {
            let (inFlight, created, heldCount) = state.withLock { state in
                (state.inFlight, state.created, state.gates.reduce(0) { $0 + $1.held.count })
            }
            let begun = Set(inFlight.values.compactMap(\.taskID))
            tasks = tasks.filter { $0.state == .running && !begun.contains(ObjectIdentifier($0)) }
            let open = inFlight.values.map(\.request) + created.values.map { $0 }
            let notBegun = !tasks.isEmpty || !created.isEmpty
            if !notBegun && inFlight.count <= heldCount { return [] }
            let now = DispatchTime.now()
            if notBegun {
                begunOnlySince = nil
            } else if begunOnlySince == nil {
                begunOnlySince = now
            }
            let waited = now.uptimeNanoseconds - start.uptimeNanoseconds
            let quiet = begunOnlySince.map { now.uptimeNanoseconds - $0.uptimeNanoseconds } ?? 0
            if waited > 2_000_000_000 || quiet > 50_000_000 {
                // Requests not begun, and not made by a protocol, are named from their task.
                let createdURLs = Set(created.values.compactMap(\.url))
                return open
                    + tasks.compactMap(\.originalRequest).filter { request in
                        !createdURLs.contains { $0 == request.url }
                    }
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    /// The tasks of `sessions` that are running now (resumed and not ended); each session is asked
    /// for at most a second (its delegate queue answers, and a test may have blocked it).
    private static func runningTasks(of sessions: [URLSession]) -> [URLSessionTask] {
        var seen = Set<ObjectIdentifier>()
        let sessions = sessions.filter { seen.insert(ObjectIdentifier($0)).inserted }
        let found = Locked<[URLSessionTask]>([])
        let group = DispatchGroup()
        for session in sessions {
            group.enter()
            session.getAllTasks { tasks in
                found.withLock { $0 += tasks.filter { $0.state == .running } }
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + 1)
        return found.withLock { $0 }
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

    func record(_ failure: MockFailure) {
        core.record(failure)
    }
}
