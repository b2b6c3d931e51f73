import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The handler shape of the tutorials: given the request, return a response and a body, or throw.
/// A thrown error fails the request with that same error.
public typealias MockHandler = @Sendable (URLRequest) throws -> (HTTPURLResponse, Data)

/// A set of handlers, keyed by URL, with the `URLSession` that is answered by them.
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

    private let state = Locked(State())

    struct Route: Sendable {
        let url: URL
        let respond: @Sendable (URLRequest) throws -> Reply
        let location: SourceLocation
        var calls = 0
    }

    enum Reply: Sendable {
        case http(HTTPURLResponse, Data)
        case mock(MockResponse)
    }

    struct State: Sendable {
        var routes: [String: Route] = [:]
        var requests: [RecordedRequest] = []
        var failures: [MockFailure] = []
    }

    /// A new registry with no handlers, and its own session.
    public convenience init() {
        self.init(protocolClass: nil)
    }

    init(protocolClass: MockURLProtocol.Type?) {
        let protocolClass = protocolClass ?? Self.directory.withLock { directory in
            directory.count += 1
            return ProtocolClasses.make(number: directory.count)
        }
        self.protocolClass = protocolClass
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

    /// Answers requests for `url` with `handler`, replacing any handler registered for the same URL.
    ///
    /// The handler runs on one of Foundation's threads; assert on the request inside it.
    /// An invalid URL string is reported as a failure of the test, and nothing is registered.
    public func register(
        _ url: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        add(url, location) { .mock(try handler($0)) }
    }

    /// Answers requests for `url` with a handler in the tutorials' shape, returning an
    /// `HTTPURLResponse` and the body.
    @_disfavoredOverload  // a handler that only throws picks the MockResponse form
    public func register(
        _ url: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping MockHandler
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        add(url, location) { request in
            let (response, data) = try handler(request)
            return .http(response, data)
        }
    }

    /// Answers requests for `url` with `handler`, replacing any handler registered for the same URL.
    public func register(
        _ url: URL,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        add(url, location) { .mock(try handler($0)) }
    }

    private func add(_ text: String, _ location: SourceLocation, _ respond: @escaping @Sendable (URLRequest) throws -> Reply) {
        guard let url = URL(string: text), url.scheme != nil else {
            record(
                MockFailure(
                    message: "MockNetwork: register(\"\(text)\") is not an absolute URL, so nothing was registered. "
                        + "Give the full URL with its scheme, e.g. \"https://api.example.com/path\".",
                    location: location))
            return
        }
        add(url, location, respond)
    }

    private func add(_ url: URL, _ location: SourceLocation, _ respond: @escaping @Sendable (URLRequest) throws -> Reply) {
        let route = Route(url: url, respond: respond, location: location)
        state.withLock { $0.routes[Self.key(for: url)] = route }
    }

    /// Removes the handler for `url`, if one is registered.
    public func remove(_ url: String) {
        guard let url = URL(string: url) else { return }
        _ = state.withLock { $0.routes.removeValue(forKey: Self.key(for: url)) }
    }

    /// Removes every handler, forgets the recorded requests, and drops failures not yet reported.
    public func reset() {
        state.withLock { $0 = State() }
    }

    // MARK: Reading

    /// Every request this registry received, answered or not, in the order they arrived.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// The URLs that have a handler, in no particular order.
    public var registeredURLs: [URL] {
        state.withLock { $0.routes.values.map(\.url) }
    }

    /// How many requests the handler for `url` has answered.
    public func callCount(for url: String) -> Int {
        guard let url = URL(string: url) else { return 0 }
        return state.withLock { $0.routes[Self.key(for: url)]?.calls ?? 0 }
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

    func record(_ failure: MockFailure) {
        state.withLock { $0.failures.append(failure) }
    }

    // MARK: Answering

    enum Outcome {
        case respond(HTTPURLResponse, Data)
        case fail(any Error)
    }

    /// Records `request` (whose `httpBody` holds its body) and answers it from the handlers.
    func answer(_ request: URLRequest, body: Data) -> Outcome {
        let recorded = RecordedRequest(request, body: body)
        let url = recorded.url
        let key = Self.key(for: url)
        let route: Route? = state.withLock { state in
            state.requests.append(recorded)
            guard state.routes[key] != nil else { return nil }
            state.routes[key]!.calls += 1
            return state.routes[key]
        }
        guard let route else { return .fail(unmatched(recorded)) }
        let reply: Reply
        do {
            reply = try route.respond(request)
        } catch let error as MockNetworkError {
            record(MockFailure(message: error.description, location: route.location))
            return .fail(error)
        } catch {
            return .fail(error)
        }
        switch reply {
        case .http(let response, let data):
            guard response.url.map(Self.key(for:)) == key else {
                let error = MockNetworkError.responseURLMismatch(
                    request: url.absoluteString, response: response.url?.absoluteString ?? "(no URL)")
                record(MockFailure(message: error.description, location: route.location))
                return .fail(error)
            }
            return .respond(response, data)
        case .mock(let mock):
            if let error = mock.error { return .fail(error) }
            guard let response = HTTPURLResponse(url: url, statusCode: mock.status, httpVersion: "HTTP/1.1", headerFields: mock.headers)
            else {
                return .fail(URLError(.badServerResponse))
            }
            return .respond(response, mock.body)
        }
    }

    private func unmatched(_ request: RecordedRequest) -> URLError {
        let summary = "MockNetwork: no handler for \(request.method) \(request.url.absoluteString)"
        let registered = registeredURLs.sorted { $0.absoluteString < $1.absoluteString }
        var lines = [summary + "."]
        if registered.isEmpty {
            lines.append("Nothing is registered.")
        } else {
            if let nearest = URLDifference.nearest(to: request.url, among: registered) {
                lines.append(
                    "Nearest: \(nearest.url.absoluteString) (\(nearest.differences.joined(separator: "; ")))")
            }
            lines.append("Registered (\(registered.count)):")
            lines += registered.prefix(10).map { "  \($0.absoluteString)" }
            if registered.count > 10 { lines.append("  … and \(registered.count - 10) more") }
        }
        lines.append(
            "Fix: register a handler for this URL, e.g. register(\"\(request.url.absoluteString)\") { _ in try .status(200) }, "
                + "or correct the URL the client builds.")
        record(MockFailure(message: lines.joined(separator: "\n"), location: nil))
        return URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: summary + " (nothing registered matches; see the test's failure for the nearest match).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
    }

    /// The key a URL is registered and looked up under: the URL without its fragment.
    static func key(for url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.firstIndex(of: "#") else { return text }
        return String(text[..<hash])
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
