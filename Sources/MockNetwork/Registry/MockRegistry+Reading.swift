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

    /// Failures for the end of a test: handlers whose expected number of calls was not met, and
    /// requests still in flight, counting those of ``session`` that have not reached MockNetwork
    /// yet (resumed, but `startLoading` not called). Forgets the expectations it reported.
    package func endOfTestFailures() -> [MockFailure] {
        let unstarted = unstartedTasks()
        // Requests a gate still holds are reported as held (and end), not as in flight.
        let gates = state.withLock { $0.gates }
        let held = gates.flatMap(\.held).map { MockRegistry.shortened("\($0.method) \($0.url.absoluteString)") }
        let heldFailures = gates.flatMap { $0.endOfTest() }
        // A request answered just now (one the test did not await, say) is out of flight within a
        // moment: wait that moment before calling it in flight.
        let deadline = DispatchTime.now() + .milliseconds(50)
        while state.withLock({ $0.inFlight.count > held.count }), DispatchTime.now() < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
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
            let begun = Set(state.inFlight.values.compactMap(\.taskID))
            let requests =
                state.inFlight.values.map(\.request)
                + unstarted.filter { !begun.contains(ObjectIdentifier($0)) }.compactMap(\.originalRequest)
            var pending = requests.map {
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

    /// The tasks of ``session`` that were resumed but have neither reached MockNetwork nor ended.
    ///
    /// A task that is only between its answer and its end is gone after a short wait; one that
    /// has not started is then still running (or has begun, and is counted as in flight).
    private func unstartedTasks() -> [URLSessionTask] {
        let running = Self.runningTasks(of: session)
        var candidates = running.filter { task in
            let id = ObjectIdentifier(task)
            return !state.withLock { $0.inFlight.values.contains { $0.taskID == id } }
        }
        let deadline = DispatchTime.now() + .milliseconds(50)
        while !candidates.isEmpty, DispatchTime.now() < deadline {
            Thread.sleep(forTimeInterval: 0.002)
            candidates = candidates.filter { $0.state == .running }
        }
        return candidates
    }

    /// The session's tasks that are running now (resumed and not ended).
    private static func runningTasks(of session: URLSession) -> [URLSessionTask] {
        let found = Locked<[URLSessionTask]?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.getAllTasks { tasks in
            found.withLock { $0 = tasks.filter { $0.state == .running } }
            done.signal()
        }
        _ = done.wait(timeout: .now() + 1)
        return found.withLock { $0 } ?? []
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

    func record(_ failure: MockFailure) {
        core.record(failure)
    }
}
