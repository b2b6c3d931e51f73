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
    public let protocolClass: URLProtocol.Type

    /// What happens to a request no handler matches.
    public enum Unmatched: Sendable {
        /// It fails with a `URLError`, and the test fails (the default).
        case fail
        /// It goes to the real network, for an app's development build that stubs only some
        /// endpoints. Never the default: a test that reaches the network is not isolated.
        case passToNetwork
    }

    /// What happens to a request no handler matches.
    public let unmatched: Unmatched

    let state = Locked(State())
    private let context = Locked<HandlerContext?>(nil)

    /// How many of the latest requests ``requests`` keeps.
    public let requestLogLimit: Int

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
        self.requestLogLimit = max(1, requestLogLimit)
        let protocolClass =
            protocolClass
            ?? Self.directory.withLock { directory in
                directory.count += 1
                return ProtocolClasses.make(number: directory.count)
            }
        self.protocolClass = protocolClass
        self.unmatched = unmatched
        self.session = URLSession(configuration: Self.configuration(routingTo: protocolClass))
        Self.directory.withLock { $0.registries[ObjectIdentifier(protocolClass)] = WeakRegistry(registry: self) }
    }

    deinit {
        let key = ObjectIdentifier(protocolClass)
        Self.directory.withLock { $0.registries[key] = nil }
    }

    /// A fresh configuration whose sessions this registry answers: ephemeral, with no URL cache
    /// and no cookie storage. Change what you need, then make a session from it.
    public var configuration: URLSessionConfiguration {
        Self.configuration(routingTo: protocolClass)
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
    /// The handler runs on one of Foundation's threads; assert on the request inside it.
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
    ///   - handler: answers each request; it runs on one of Foundation's threads.
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
            responses.map { response in { _ in .mock(response) } }, repeatsLast: false)
    }

    func add(
        _ match: RequestMatch, _ expectedCalls: Int?, _ location: SourceLocation,
        _ responders: [@Sendable (URLRequest) throws -> Reply], repeatsLast: Bool, isFallback: Bool = false
    ) -> MockRoute {
        if case .invalid(let text) = match.target {
            record(
                MockFailure(
                    message: "MockNetwork: register(\"\(text)\") is not an absolute URL, so nothing was registered. "
                        + "Give the full URL with its scheme, e.g. \"https://api.example.com/path\".",
                    location: location))
            return MockRoute(registry: self, id: -1)
        }
        return state.withLock { state in
            state.nextID += 1
            let route = Route(
                id: state.nextID, match: match, responders: responders, repeatsLast: repeatsLast,
                isFallback: isFallback,
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
            let logged = state.requestsBefore + state.requests.count
            state = State()
            (state.inFlight, state.nextID, state.requestsBefore) = (inFlight, nextID, logged)
        }
    }

    // MARK: Reading

    /// The requests this registry received, answered or not, in the order they arrived: all of
    /// them, or the latest ``requestLogLimit`` when there were more.
    public var requests: [RecordedRequest] {
        let limit = requestLogLimit
        return state.withLock { Array($0.requests.suffix(limit)) }
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

    /// Returns the failures not yet reported, and forgets them.
    package func takeFailures() -> [MockFailure] {
        state.withLock { state in
            defer { state.failures.removeAll() }
            return state.failures
        }
    }

    /// Failures for the end of a test: handlers whose expected number of calls was not met, and
    /// requests still in flight. Forgets the expectations it reported.
    package func endOfTestFailures() -> [MockFailure] {
        state.withLock { state in
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
            let pending = state.inFlight.values.map { "\($0.httpMethod ?? "GET") \($0.url?.absoluteString ?? "")" }
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

    func record(_ failure: MockFailure) {
        state.withLock { $0.failures.append(failure) }
    }

    func routeCalls(_ id: Int) -> Int {
        state.withLock { $0.routes[id]?.calls ?? 0 }
    }

    // MARK: Answering

    enum Reply: Sendable {
        case http(HTTPURLResponse, Data)
        case mock(MockResponse)
    }

    /// What the protocol delivers for one request.
    struct Answer: Sendable {
        var result: Result<(HTTPURLResponse, Data), any Error>
        var delay: TimeInterval = 0
        var chunkSize: Int?
        /// The request goes to the real network (`Unmatched.passToNetwork`, or an archive recording).
        var passToNetwork = false
        /// The request's number in the log, for what the network answers it.
        var logNumber = 0
    }

    static let redirectLimit = 16

    /// Records `request` (whose `httpBody` holds its body) and answers it from the handlers,
    /// following redirects.
    func answer(_ request: URLRequest, body: Data) -> Answer {
        var request = request
        var body = body
        var delay: TimeInterval = 0
        for _ in 0...Self.redirectLimit {
            let step = answerOnce(request, body: body)
            guard case .success(let (response, _)) = step.answer.result, step.follow,
                [301, 302, 303, 307, 308].contains(response.statusCode),
                let location = response.value(forHTTPHeaderField: "Location"),
                let next = URL(string: location, relativeTo: response.url ?? request.url)?.absoluteURL
            else {
                var answer = step.answer
                answer.delay += delay
                return answer
            }
            delay += step.answer.delay
            let method = request.httpMethod ?? "GET"
            let becomesGET =
                (response.statusCode == 303 && method != "HEAD")
                || ([301, 302].contains(response.statusCode) && method == "POST")
            request.url = next
            if becomesGET {
                request.httpMethod = "GET"
                request.httpBody = nil
                body = Data()
                request.setValue(nil, forHTTPHeaderField: "Content-Type")
                request.setValue(nil, forHTTPHeaderField: "Content-Length")
            }
        }
        return Answer(
            result: .failure(
                URLError(
                    .httpTooManyRedirects,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: more than \(Self.redirectLimit) redirects, starting at \(request.url?.absoluteString ?? "?")."
                    ])))
    }

    private func answerOnce(_ request: URLRequest, body: Data) -> (answer: Answer, follow: Bool) {
        let recorded = RecordedRequest(request, body: body)
        let limit = requestLogLimit
        var number = 0
        let chosen: (responder: @Sendable (URLRequest) throws -> Reply, location: SourceLocation)?
        let exhausted: (count: Int, location: SourceLocation)?
        (chosen, exhausted) = state.withLock { state in
            number = state.log(recorded, limit: limit)
            guard let route = state.bestRoute(for: request, url: recorded.url, body: body) else { return (nil, nil) }
            route.calls += 1
            let index = route.calls - 1
            if index < route.responders.count { return ((route.responders[index], route.location), nil) }
            if route.repeatsLast, let last = route.responders.last { return ((last, route.location), nil) }
            return (nil, (route.responders.count, route.location))
        }
        let (answer, follow) = reply(to: recorded, number: number, chosen: chosen, exhausted: exhausted)
        switch answer.result {
        case .success(let (response, data)):
            settle(number, .response(response, data, delay: answer.delay))
        case .failure(let error):
            if !answer.passToNetwork { settle(number, .failure(Self.describe(error))) }
        }
        return (answer, follow)
    }

    private func reply(
        to recorded: RecordedRequest, number: Int,
        chosen: (responder: @Sendable (URLRequest) throws -> Reply, location: SourceLocation)?,
        exhausted: (count: Int, location: SourceLocation)?
    ) -> (answer: Answer, follow: Bool) {
        let url = recorded.url
        if let exhausted {
            let error = MockNetworkError.sequenceExhausted(
                request: "\(recorded.method) \(url.absoluteString)", count: exhausted.count)
            record(MockFailure(message: error.description, location: exhausted.location))
            return (Answer(result: .failure(error)), false)
        }
        guard let chosen else {
            let archive = state.withLock { $0.archive }
            if unmatched == .passToNetwork || archive?.isRecording == true {
                return (Answer(result: .failure(URLError(.unknown)), passToNetwork: true, logNumber: number), false)
            }
            return (Answer(result: .failure(unmatchedError(recorded, archive: archive))), false)
        }
        let reply: Reply
        do {
            reply = try chosen.responder(recorded.request)
        } catch let error as MockNetworkError {
            record(MockFailure(message: error.description, location: chosen.location))
            return (Answer(result: .failure(error)), false)
        } catch {
            return (Answer(result: .failure(error)), false)
        }
        switch reply {
        case .http(let response, let data):
            guard response.url.map({ URLKeys.key($0, .exact) }) == URLKeys.key(url, .exact) else {
                let error = MockNetworkError.responseURLMismatch(
                    request: url.absoluteString, response: response.url?.absoluteString ?? "(no URL)")
                record(MockFailure(message: error.description, location: chosen.location))
                return (Answer(result: .failure(error)), false)
            }
            return (Answer(result: .success((response, data))), true)
        case .mock(let mock):
            if let error = mock.error { return (Answer(result: .failure(error), delay: mock.delay), false) }
            guard let response = httpResponse(url, mock.status, mock.headers) else {
                return (Answer(result: .failure(URLError(.badServerResponse))), false)
            }
            return (
                Answer(result: .success((response, mock.body)), delay: mock.delay, chunkSize: mock.chunkSize),
                mock.followsRedirects
            )
        }
    }

    /// Notes in the log what the request numbered `number` got.
    func settle(_ number: Int, _ outcome: RecordedRequest.Outcome) {
        state.withLock { $0.settle(number, outcome) }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? MockNetworkError { return error.description }
        if let error = error as? URLError {
            return "URLError(\(error.code.rawValue)): \(error.localizedDescription)"
        }
        return "\(type(of: error)): \(error.localizedDescription)"
    }

    /// An `HTTPURLResponse`, reused while a URL keeps getting the same status and headers:
    /// on Linux, making one with a `Content-Type` costs more than the rest of a request's answer.
    /// (The response is immutable, so handing the same one to several requests is safe.)
    private func httpResponse(_ url: URL, _ status: Int, _ headers: [String: String]) -> HTTPURLResponse? {
        let key = url.absoluteString
        let cached = state.withLock { $0.responses[key] }
        if let cached, cached.status == status, cached.headers == headers { return cached.response }
        guard
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
        else { return nil }
        state.withLock { state in
            if state.responses.count >= 1_000 { state.responses.removeAll(keepingCapacity: true) }
            state.responses[key] = CachedResponse(status: status, headers: headers, response: response)
        }
        return response
    }

    private func unmatchedError(_ request: RecordedRequest, archive: ArchiveBinding?) -> URLError {
        let summary =
            archive == nil
            ? "MockNetwork: no handler for \(request.method) \(request.url.absoluteString)"
            : "MockNetwork: no entry for \(request.method) \(request.url.absoluteString) in the archive"
        let registered = state.withLock { state in state.routes.values.sorted { $0.id < $1.id } }
        var lines = [summary + (archive.map { " \($0.file.path)." } ?? ".")]
        if registered.isEmpty {
            lines.append("Nothing is registered.")
        } else {
            // A handler whose URL fits first; then fewest failing rules; then the longest common start of the URL.
            let requestedText = Array(request.url.absoluteString.utf8)
            var nearest: (route: Route, why: [String], rank: (Int, Int, Int))?
            for route in registered {
                let why = route.match.mismatches(request.request, url: request.url, body: request.body)
                let urlFits = why.count == route.match.ruleMismatches(request.request, body: request.body).count
                let rank = (urlFits ? 0 : 1, why.count, -Self.commonPrefix(requestedText, route.urlKey ?? ""))
                if let best = nearest, best.rank <= rank { continue }
                nearest = (route, why, rank)
            }
            if let (route, why, _) = nearest {
                lines.append("Nearest: \(route.match.description) (\(why.joined(separator: "; ")))")
            }
            lines.append("Registered (\(registered.count)):")
            lines += registered.prefix(10).map { "  \($0.match.description)" }
            if registered.count > 10 { lines.append("  … and \(registered.count - 10) more") }
        }
        if let archive {
            lines.append(
                "Fix: record it from the real server, which rewrites this test's archive: "
                    + archive.recordCommand + " (or correct the URL the client builds).")
        } else {
            lines.append(
                "Fix: register a handler for this URL, e.g. register(\"\(request.url.absoluteString)\") { _ in try .status(200) }, "
                    + "or correct the URL the client builds.")
        }
        record(MockFailure(message: lines.joined(separator: "\n"), location: nil))
        return URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: summary
                    + " (nothing registered matches; see the test's failure for the nearest match).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
    }

    private static func commonPrefix(_ a: [UInt8], _ b: String) -> Int {
        var count = 0
        for (x, y) in zip(a, b.utf8) {
            guard x == y else { break }
            count += 1
        }
        return count
    }

    // MARK: In flight

    func began(_ id: Int, _ request: URLRequest) {
        state.withLock { $0.inFlight[id] = request }
    }

    func ended(_ id: Int) {
        _ = state.withLock { $0.inFlight.removeValue(forKey: id) }
    }

    // MARK: Where handlers run

    /// Runs a handler's work somewhere of the caller's choosing (the `.mockNetwork` trait: inside
    /// the test's task, so that `#expect` in a handler is an issue of that test).
    package typealias HandlerContext = @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Where this registry's handlers run: `nil` for the protocol's own thread.
    package var handlerContext: HandlerContext? {
        get { context.withLock { $0 } }
        set { context.withLock { $0 = newValue } }
    }

    // MARK: Directory of registries

    struct WeakRegistry: Sendable {
        weak var registry: MockRegistry?
    }

    struct Directory: Sendable {
        var count: UInt64 = 0
        var registries: [ObjectIdentifier: WeakRegistry] = [:]
    }

    static let directory = Locked(Directory())

    /// The registry a protocol class routes to, if it is still alive.
    static func registry(for protocolClass: AnyClass) -> MockRegistry? {
        let key = ObjectIdentifier(protocolClass)
        return directory.withLock { $0.registries[key]?.registry }
    }
}

/// A registered handler, for reading how often it was called.
public struct MockRoute: Sendable {
    weak var registry: MockRegistry?
    let id: Int

    /// How many requests this handler has answered.
    public var callCount: Int { registry?.routeCalls(id) ?? 0 }
}
