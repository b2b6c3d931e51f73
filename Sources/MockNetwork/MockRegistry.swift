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
///     .json(#"{"name": "Ada"}"#)
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
    public struct Unmatched: Sendable, Equatable {
        /// The hosts let through to the network (`*` patterns, lowercased); `nil` for none, `[]` for any.
        let passedHosts: [String]?

        /// It fails with a `URLError`, and the test fails (the default).
        public static let fail = Unmatched(passedHosts: nil)

        /// It goes to the real network, for an app's development build that stubs only some
        /// endpoints. Never the default: a test that reaches the network is not isolated.
        public static let passToNetwork = Unmatched(passedHosts: [])

        /// It goes to the real network when its host is one of `hosts` (exact names, or patterns
        /// with `*` such as `"*.example.com"`); any other fails as with ``fail``, its report naming
        /// the hosts let through. For a development build that mocks some hosts and lets a named
        /// few reach their servers.
        ///
        /// ```swift
        /// let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["auth.example.com"]))
        /// ```
        public static func passToNetwork(hosts: [String]) -> Unmatched {
            // Never `[]`, which means any host: with no host named, none is let through.
            Unmatched(passedHosts: hosts.isEmpty ? nil : hosts.map { $0.lowercased() })
        }

        /// Whether a request for `url` no handler matched goes to the network.
        /// `passToNetwork(hosts: "a", "b")`, for messages.
        var hostList: String {
            "passToNetwork(hosts: \((passedHosts ?? []).map { "\"\($0)\"" }.joined(separator: ", ")))"
        }

        func passes(_ url: URL) -> Bool {
            guard let hosts = passedHosts else { return false }
            guard !hosts.isEmpty else { return true }
            let host = Array((url.host ?? "").lowercased().utf8)
            return hosts.contains { CompiledGlob($0).matches(host) }
        }
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
    /// then make a session from it. Give it a `urlCache` and answers are cached as a server's would
    /// be: `Cache-Control`, `Expires`, and `ETag` or `Last-Modified` revalidation, where a handler
    /// sees `If-None-Match` and may answer `304` (the README's "Caching").
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
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }
}

/// A registered handler, for reading how often it was called.
public struct MockRoute: Sendable {
    weak var registry: MockRegistry?
    let id: Int

    /// How many requests this handler has answered.
    public var callCount: Int { registry?.routeCalls(id) ?? 0 }
}
