import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The handler shape of the tutorials: given the request, return a response and a body, or throw.
/// A thrown error fails the request with that same error.
public typealias MockHandler = @Sendable (URLRequest) throws -> (HTTPURLResponse, Data)

/// A set of handlers with the `URLSession` they answer.
///
/// Every registry has its own session (and a ``configuration`` for code that builds its own),
/// and requests on it see only this registry's handlers, so tests that each make a registry can run
/// in parallel. A request no handler matches fails with a `URLError` and is kept as a
/// ``MockFailure`` for the test to report; it never reaches the network.
///
/// ```swift
/// let mocks = MockRegistry()
/// mocks.register("https://api.example.com/user") { request in
///     try .json(#"{"name": "Ada"}"#)
/// }
/// let (data, _) = try await mocks.session.data(from: URL(string: "https://api.example.com/user")!)
/// ```
public final class MockRegistry: Sendable {
    /// A session whose requests this registry answers: ephemeral, with no URL cache and no cookies.
    public let session: URLSession

    /// The `URLProtocol` class that routes requests to this registry; put it in a configuration's
    /// `protocolClasses` to route that configuration's sessions here.
    public var protocolClass: URLProtocol.Type { core.protocolClass }

    /// What happens to a request no handler matches.
    public enum Unmatched: Sendable {
        /// It fails with a `URLError`, and the test fails (the default).
        case fail
        /// It goes to the real network, for an app's development build that stubs only some
        /// endpoints. Never the default: a test that reaches the network is not isolated.
        case passToNetwork
    }

    /// What happens to a request no handler matches.
    public var unmatched: Unmatched { core.unmatched }

    /// How many of the latest requests ``requests`` keeps.
    public var requestLogLimit: Int { core.requestLogLimit }

    /// Everything but the session: what requests are answered from. It lives as long as this
    /// registry or its session does, so a session kept without its registry still works.
    let core: Core
    var state: Locked<State> { core.state }

    /// A new registry with no handlers, and its own session.
    ///
    /// - Parameters:
    ///   - unmatched: `.fail` (the default), or `.passToNetwork` to let requests no handler
    ///     matches go to the real network.
    ///   - requestLogLimit: how many of the latest requests ``requests`` keeps, so that a long
    ///     stress test does not keep every request in memory.
    public convenience init(unmatched: Unmatched = .fail, requestLogLimit: Int = 10_000) {
        self.init(protocolClass: nil, unmatched: unmatched, requestLogLimit: requestLogLimit)
    }

    init(protocolClass: MockURLProtocol.Type?, unmatched: Unmatched = .fail, requestLogLimit: Int = 10_000) {
        let protocolClass = protocolClass ?? Directory.makeClass()
        core = Core(protocolClass: protocolClass, unmatched: unmatched, requestLogLimit: max(1, requestLogLimit))
        let configuration = Self.configuration(routingTo: protocolClass)
        session = URLSession(configuration: configuration, delegate: nil, delegateQueue: DelegateQueue())
        Directory.add(protocolClass, for: self, configuration: configuration)
    }

    /// The queue the session calls completion handlers on: serial, as URLSession's own default, but
    /// on a Dispatch queue of its own. URLSession's default runs on Dispatch's shared pool, the one
    /// Swift concurrency uses too, and on Linux it waited a second or more for a thread while tests
    /// blocked the pool's threads (a synchronous test waiting on a semaphore for its completion).
    private final class DelegateQueue: OperationQueue, @unchecked Sendable {  // as OperationQueue; adds a constant
        /// Kept here: `underlyingQueue` does not keep it on Linux.
        private let dispatchQueue = DispatchQueue(label: "MockNetwork.session-delegate")

        override init() {
            super.init()
            maxConcurrentOperationCount = 1
            underlyingQueue = dispatchQueue
        }
    }

    deinit {
        // Once the session is gone too, the core goes, and requests still waiting on sessions made
        // from `configuration` fail at once.
        Directory.sweep(whenGone: session)
    }

    /// A fresh configuration whose sessions this registry answers: ephemeral, with no URL cache
    /// and no cookie storage. Change what you need (timeouts included: MockNetwork enforces them),
    /// then make a session from it.
    public var configuration: URLSessionConfiguration {
        // A protocol class of its own, so that requests know which configuration's timeouts apply.
        let protocolClass = Directory.makeClass()
        let configuration = Self.configuration(routingTo: protocolClass)
        Directory.add(protocolClass, for: self, configuration: configuration)
        return configuration
    }

    static func configuration(routingTo protocolClass: AnyClass) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [protocolClass]
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    // MARK: Registering

    /// Answers requests for `url` with `handler`. Registering the same URL (and method) again
    /// replaces the handler.
    ///
    /// The handler runs on a thread of MockNetwork's, never Foundation's (it may block, or make
    /// requests of its own); assert on the request inside it.
    ///
    /// - Parameters:
    ///   - url: the full URL, query included; see ``RequestMatch`` for looser matching.
    ///   - method: when given, only requests with this HTTP method.
    ///   - expectedCalls: when given, the test fails at its end unless the handler answered exactly
    ///     this many requests.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    ///   - handler: answers each request, on a thread of MockNetwork's.
    @discardableResult
    public func register(
        _ url: String, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        let match = method.map { RequestMatch.url(url).method($0) } ?? .url(url)
        return add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [{ .mock(try handler($0)) }], repeatsLast: true)
    }

    /// Answers requests for `url` with a handler in the tutorials' shape, returning an
    /// `HTTPURLResponse` and the body.
    @_disfavoredOverload  // a handler that only throws picks the MockResponse form
    @discardableResult
    public func register(
        _ url: String, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping MockHandler
    ) -> MockRoute {
        let match = method.map { RequestMatch.url(url).method($0) } ?? .url(url)
        return add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [
                {
                    let (response, data) = try handler($0); return .http(response, data)
                }
            ], repeatsLast: true)
    }

    /// Answers requests for `url` with `handler`, for code that keeps its URLs as `URL`s (as the
    /// tutorials' handler tables do); the same as registering `url.absoluteString`.
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(url, method: method), expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
            column: column, handler)
    }

    /// Answers requests for `url` with a handler in the tutorials' shape.
    @_disfavoredOverload  // a handler that only throws picks the MockResponse form
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping MockHandler
    ) -> MockRoute {
        register(
            .url(url, method: method), expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
            column: column, handler)
    }

    /// Answers requests that `match` describes with a handler in the tutorials' shape.
    @_disfavoredOverload  // a handler that only throws picks the MockResponse form
    @discardableResult
    public func register(
        _ match: RequestMatch, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping MockHandler
    ) -> MockRoute {
        add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [
                {
                    let (response, data) = try handler($0)
                    return .http(response, data)
                }
            ], repeatsLast: true)
    }

    /// Answers requests that `match` describes with `handler`.
    @discardableResult
    public func register(
        _ match: RequestMatch, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [{ .mock(try handler($0)) }], repeatsLast: true)
    }

    /// Answers the requests that `match` describes with `responses`, one each, in order: e.g.
    /// `[.status(503), .status(503), .json(body)]` for a client that retries. A request after the
    /// last fails the request and the test.
    @discardableResult
    public func register(
        _ match: RequestMatch, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        sequence responses: [MockResponse]
    ) -> MockRoute {
        add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            responses.map { response in { _ in .mock(response) } }, repeatsLast: false, runsUserCode: false)
    }

    func add(
        _ match: RequestMatch, _ expectedCalls: Int?, _ location: SourceLocation,
        _ responders: [@Sendable (URLRequest) throws -> Reply], repeatsLast: Bool, isFallback: Bool = false,
        runsUserCode: Bool = true
    ) -> MockRoute {
        if case .invalid(let text) = match.target {
            record(
                MockFailure(
                    message: "MockNetwork: register(\"\(text)\") is not an absolute URL, so nothing was registered. "
                        + "Give the full URL with its scheme, e.g. \"https://api.example.com/path\".",
                    location: location))
            return MockRoute(registry: self, id: -1)
        }
        if case .invalidJSON(let text) = match.body {
            record(
                MockFailure(
                    message: "MockNetwork: .jsonBody(\"\(MockRegistry.shortened(text))\") is not valid JSON, so no "
                        + "request can match it and nothing was registered. Write the body as JSON, with "
                        + "double-quoted keys and strings, e.g. .jsonBody(#\"{\"user\": \"ada\"}\"#).",
                    location: location))
            return MockRoute(registry: self, id: -1)
        }
        return state.withLock { state in
            state.nextID += 1
            let route = Route(
                id: state.nextID, match: match, responders: responders, repeatsLast: repeatsLast,
                isFallback: isFallback, runsUserCode: runsUserCode,
                expectedCalls: expectedCalls, location: location)
            state.insert(route)
            return MockRoute(registry: self, id: route.id)
        }
    }

    /// Removes the handlers registered for exactly `url` (whatever their other rules).
    public func remove(_ url: String) {
        guard let url = URLKeys.absoluteString(url) else { return }
        state.withLock { $0.remove(url: url) }
    }

    /// Removes every handler, forgets the recorded requests, and drops failures not yet reported.
    public func reset() {
        state.withLock { state in
            // Requests still in flight stay in flight, and route numbers are never reused, so a
            // `MockRoute` kept from before the reset does not read a new route's count.
            // Requests answered after the reset are numbered past the old log, so their answers
            // do not land on a new request's entry.
            let (inFlight, nextID) = (state.inFlight, state.nextID)
            state = State(logLimit: state.log.limit, logged: state.log.total)
            (state.inFlight, state.nextID) = (inFlight, nextID)
        }
    }

    // MARK: Reading

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
        return state.withLock { state in
            var out: [MockFailure] = []
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
            let pending = requests.map {
                MockRegistry.shortened("\(RecordedRequest.method(of: $0)) \($0.url?.absoluteString ?? "")")
            }
            .sorted()
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
        state.withLock { state in state.routes.values.filter { !$0.isFallback }.min { $0.id < $1.id }?.location }
    }

    func routeCalls(_ id: Int) -> Int {
        state.withLock { $0.routes[id]?.calls ?? 0 }
    }

    /// Where this registry's handlers run: `nil` for a thread of MockNetwork's own (never
    /// Foundation's queue).
    package var handlerContext: HandlerContext? {
        get { core.handlerContext }
        set { core.handlerContext = newValue }
    }

    func record(_ failure: MockFailure) {
        core.record(failure)
    }
}

/// A registered handler, for reading how often it was called.
public struct MockRoute: Sendable {
    weak var registry: MockRegistry?
    let id: Int

    /// How many requests this handler has answered.
    public var callCount: Int { registry?.routeCalls(id) ?? 0 }
}
