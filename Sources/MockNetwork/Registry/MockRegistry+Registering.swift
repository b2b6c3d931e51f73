import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Something that registers handlers in a ``MockRegistry``: the registry itself, and a test's own
/// holder of one (MockNetworkTesting's `MockNetworkTestCase`, or a base class of your suite that keeps
/// a registry). Every form of `register` is written once, here, for all of them; a module that adds a
/// kind of handler (GraphQL's `(request, operation)`) adds its form here too.
///
/// The first argument is a ``RequestMatch``: a string literal is the match of its URL
/// (`"https://api.example.com/user"`), `.url(_:)` makes one of a `String` or `URL` value, and
/// `.url(…).method("POST")` or `.host(…)` narrow or widen it. The kinds of handler differ by shape or
/// label, so a closure fits one kind, or the call does not compile:
///
/// ```swift
/// mocks.register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
/// mocks.register(.url(userURL), method: "DELETE") { _ in .status(204) }
/// mocks.register("https://api.example.com/feed") { _ in .json(await store.feed()) }
/// mocks.register("https://api.example.com/users/{id}") { _, parameters in .text(parameters["id"]!) }
/// mocks.register("https://api.example.com/flags", answer: .json(#"{"beta": true}"#))
/// mocks.register("https://api.example.com/retry", sequence: [.status(503), .status(200)])
/// ```
public protocol MockRegistering {
    /// The registry the registrations go to.
    var mockRegistry: MockRegistry { get }
}

extension MockRegistry: MockRegistering {
    /// This registry.
    public var mockRegistry: MockRegistry { self }
}

/// Registering handlers: every form, for the registry and for whatever holds one.
extension MockRegistering {
    /// Answers requests that `match` describes with `handler`. Registering the same URL (and method)
    /// again replaces the handler.
    ///
    /// The handler runs on a thread of MockNetwork's, never Foundation's (it may block, or make
    /// requests of its own); assert on the request inside it.
    ///
    /// ```swift
    /// mocks.register("https://api.example.com/user") { request in
    ///     .json(#"{"name": "Ada"}"#)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - match: which requests: a URL as a string literal (query included), `.url(_:)` of a `String`
    ///     or `URL` value, or any ``RequestMatch``.
    ///   - method: when given, only requests with this HTTP method (as `match.method(_:)`).
    ///   - expectedCalls: when given, the test fails at its end unless the handler answered exactly
    ///     this many requests.
    ///   - fileID: where the registration is, for failures that point at it; leave the default.
    ///   - filePath: where the registration is; leave the default.
    ///   - line: where the registration is; leave the default.
    ///   - column: where the registration is; leave the default.
    ///   - handler: answers each request, on a thread of MockNetwork's.
    @discardableResult
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [.sync { .mock(try handler($0)) }], repeatsLast: true)
    }

    /// Answers requests that `match` describes with a handler in the tutorials' shape
    /// (``MockHandler``), returning an `HTTPURLResponse` and the body.
    ///
    /// It is disfavored, and `Response` generic, so that a closure that only throws picks the
    /// ``MockResponse`` form.
    @_disfavoredOverload
    @discardableResult
    public func register<Response: HTTPURLResponse>(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> (Response, Data)
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [
                .sync {
                    let (response, data) = try handler($0)
                    return .http(response, data)
                }
            ], repeatsLast: true)
    }

    /// Answers requests that `match` describes with an `async` handler, which may `await` (a fixture
    /// store, an actor, a nested request). It runs in a task of its own, never on Foundation's queue,
    /// under the same rules as a synchronous handler; when the request ends first (its task
    /// cancelled, or its timeout), that task is cancelled: `Task.isCancelled` turns true and
    /// `Task.sleep` throws.
    ///
    /// ```swift
    /// mocks.register("https://api.example.com/user") { request async throws in
    ///     .json(await store.user())
    /// }
    /// ```
    @discardableResult
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [.async { .mock(try await handler($0)) }], repeatsLast: true)
    }

    /// Answers the requests that `match` describes with `responses`, one each, in order: e.g.
    /// `[.status(503), .status(503), .json(body)]` for a client that retries. A request after the
    /// last fails the request and the test.
    @discardableResult
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        sequence responses: [MockResponse]
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            mockRegistry.checkedAtRegistration(responses).map { response in .sync { _ in .mock(response) } },
            repeatsLast: false, runsUserCode: false)
    }

    /// Answers every request that `match` describes with `response`, the same each time. No closure
    /// runs, so the request is answered inside `startLoading` at URLSession's own cost: the fastest
    /// form, for answers that do not depend on the request.
    ///
    /// ```swift
    /// mocks.register("https://api.example.com/flags", answer: .json(#"{"beta": true}"#))
    /// ```
    @discardableResult
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        answer response: MockResponse
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            mockRegistry.checkedAtRegistration([response]).map { response in .sync { _ in .mock(response) } },
            repeatsLast: true, runsUserCode: false)
    }
}

extension MockRegistry {
    /// Responses registered as they are (`answer:`, `sequence:`): one whose builder was given input
    /// it cannot use fails the test now, at the builder's line, whether or not a request ever comes
    /// for it, and then fails its request with the same error, recording nothing more.
    func checkedAtRegistration(_ responses: [MockResponse]) -> [MockResponse] {
        responses.map { response in
            guard let location = response.invalidAt, let error = response.error else { return response }
            record(MockFailure(message: "\(error)", location: location))
            return .failure(error)
        }
    }
}

extension RequestMatch {
    /// The same match, narrowed to `method` when one is given (the `method:` argument of `register`).
    package func method(_ method: String?) -> RequestMatch {
        method.map { self.method($0) } ?? self
    }
}

/// Adding routes, removing them, and starting afresh.
extension MockRegistry {
    package func add(
        _ match: RequestMatch, _ expectedCalls: Int?, _ location: SourceLocation,
        _ responders: [Responder], repeatsLast: Bool, fromBacking: Bool = false,
        runsUserCode: Bool = true
    ) -> MockRoute {
        add(
            match, expectedCalls, location, routeResponders: responders.map(RouteResponder.fixed),
            repeatsLast: repeatsLast, fromBacking: fromBacking, runsUserCode: runsUserCode)
    }

    package func add(
        _ match: RequestMatch, _ expectedCalls: Int?, _ location: SourceLocation,
        routeResponders responders: [RouteResponder], repeatsLast: Bool, fromBacking: Bool = false,
        runsUserCode: Bool = true
    ) -> MockRoute {
        switch match.target {
        case .invalid(let text):
            record(
                MockFailure(
                    message: "MockNetwork: register(\"\(text)\") is not an absolute URL, so nothing was registered. "
                        + "Give the full URL with its scheme, e.g. \"https://api.example.com/path\".",
                    location: location))
            return MockRoute(registry: self, id: -1)
        case .invalidTemplate(_, let reason):
            record(MockFailure(message: "MockNetwork: \(reason) Nothing was registered.", location: location))
            return MockRoute(registry: self, id: -1)
        case .url, .pattern, .template: break
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
                rank: fromBacking ? .backing : Self.defaultsOf == ObjectIdentifier(core) ? .defaults : .test,
                runsUserCode: runsUserCode,
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
            // `nextRequest` calls waiting now go on waiting (for requests after the reset), and still end
            // at their timeout or cancel: their continuations stay where those find them.
            let kept = state
            state = State(logLimit: state.log.limit, logged: state.log.total)
            (state.inFlight, state.created, state.nextID) = (kept.inFlight, kept.created, kept.nextID)
            (state.logWaiters, state.nextWaiterID) = (kept.logWaiters, kept.nextWaiterID)
        }
    }
}
