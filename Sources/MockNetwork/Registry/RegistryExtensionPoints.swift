import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a product puts behind a registry's handlers (MockNetworkArchives' recorded file): the core
/// asks it what a request no handler matches does, and tells it what the network answered.
///
/// The core knows no kind of backing; it calls these at the three places a request meets one: the
/// lookup that found no handler, the unmatched report, and the answer of a request let through.
package protocol RegistryBacking: AnyObject, Sendable {
    /// Whether a request no handler matches goes to the real network (a recording).
    var sendsUnmatchedToNetwork: Bool { get }
    /// The unmatched report's first line for `request` (`shown` is its method and shortened URL,
    /// with the operation it carries), when the backing has its own words for it.
    func unmatchedHeadline(_ shown: String) -> String
    /// The report's fix, without its final full stop.
    var unmatchedFix: String { get }
    /// Told of what the network answered `request`, sent at `started`, while
    /// ``sendsUnmatchedToNetwork``. Returns a failure of the test to record, if any.
    func networkAnswered(_ request: URLRequest, result: Result<(HTTPURLResponse, Data), any Error>, started: Date)
        -> String?
}

extension MockRegistry {
    /// The registry's backing, if a product set one (``RegistryBacking``).
    package var backing: (any RegistryBacking)? {
        get { core.state.withLock { $0.backing } }
        set { core.state.withLock { $0.backing = newValue } }
    }
}

extension MockRegistry {
    /// Answers the requests `match` describes with `answers` in order, the last one every request
    /// after it, as an entry of the registry's backing: outranked by any handler the test
    /// registers, and exempt from the checks of handlers never called.
    package func addBacking(_ match: RequestMatch, answers: [MockResponse], at location: SourceLocation) {
        _ = add(
            match, nil, location, answers.map { answer in .sync { _ in .mock(answer) } }, repeatsLast: true,
            fromBacking: true, runsUserCode: false)
    }
}

extension MockRegistry {
    /// A product's own setting for this registry, keyed by its type (MockNetworkArchives keeps
    /// whether a failing test attaches its traffic): `nil` until set.
    package func setting<Value: Sendable>(_ key: Value.Type) -> Value? {
        core.settings.withLock { $0[ObjectIdentifier(key)] as? Value }
    }

    /// Sets a product's own setting for this registry (see ``setting(_:)``).
    package func set<Value: Sendable>(_ value: Value) {
        core.settings.withLock { $0[ObjectIdentifier(Value.self)] = value }
    }
}

extension MockRegistry {
    /// Answers every request nothing else answers with `answer`, run as an `async` handler: a
    /// default (any handler and any entry of the backing win over it) that counts as no handler the
    /// test registered. MockNetworkApp forwards the app's requests to a UI test's server with it.
    package func addFallback(_ answer: @escaping @Sendable (URLRequest) async throws -> (HTTPURLResponse, Data)) {
        MockRegistry.$defaultsOf.withValue(ObjectIdentifier(core)) {
            _ = add(
                .host("*"), nil, SourceLocation(),
                [
                    .async { request in
                        let (response, data) = try await answer(request)
                        return .http(response, data)
                    }
                ],
                repeatsLast: true)
        }
    }

    /// What a registry has seen, as a product reports it (MockNetworkApp's launch report).
    package struct Activity: Sendable {
        /// How many requests were logged, ever.
        package let logged: Int
        /// The numbers of the requests in flight.
        package let inFlight: Set<Int>
        /// The failures recorded so far.
        package let failures: [MockFailure]
        /// The requests the log keeps.
        package let log: [RecordedRequest]
    }

    /// A way to read the registry's activity that does not keep the registry alive, only its log:
    /// `nil` when `unchanged` says the counts and requests in flight are as seen last time.
    package func activityReader()
        -> @Sendable (_ unchanged: (_ logged: Int, _ failures: Int, _ inFlight: Set<Int>) -> Bool) -> Activity?
    {
        let core = self.core
        return { unchanged in
            core.state.withLock { state in
                let inFlight = Set(state.inFlight.keys)
                guard !unchanged(state.log.total, state.failures.count, inFlight) else { return nil }
                return Activity(
                    logged: state.log.total, inFlight: inFlight, failures: state.failures, log: state.log.all)
            }
        }
    }
}

/// One message of an exchange whose answer switched its connection to another protocol (a
/// product's sockets), as an export of the registry's traffic shows it.
package struct SwitchedMessage: Sendable, Equatable {
    /// Sent by the client (else by the server).
    package var fromClient: Bool
    /// When it was sent or received.
    package var time: Date
    /// Text (else binary data).
    package var isText: Bool
    /// Its bytes.
    package var data: Data

    package init(fromClient: Bool, time: Date, isText: Bool, data: Data) {
        self.fromClient = fromClient
        self.time = time
        self.isText = isText
        self.data = data
    }
}

/// What keeps the messages of exchanges whose answers switched protocols (MockNetworkServer's
/// sockets): an export of the registry's traffic adds them to the request whose answer switched.
package protocol SwitchedExchanges: AnyObject, Sendable {
    /// The header field an answer that switched carries: its value names the exchange.
    var field: String { get }
    /// The messages of the exchange `id` names, in order; `nil` for no such exchange.
    func messages(of id: String) -> [SwitchedMessage]?
    /// The registration the unmatched report's fix shows for `request` (its URL shown as `url`), when
    /// it asked to switch to this product's protocol (a socket's handshake); `nil` for any other.
    func unmatchedExample(for request: URLRequest, shown url: String) -> String?
}

extension MockRegistry {
    /// The registry's exchanges that switched protocols, if a product keeps any.
    package var switchedExchanges: (any SwitchedExchanges)? {
        get { core.switchedExchanges }
        set { set(SwitchedExchangesSetting(exchanges: newValue)) }
    }

    /// The setting's box: a setting is keyed by its concrete type.
    struct SwitchedExchangesSetting: Sendable {
        let exchanges: (any SwitchedExchanges)?
    }
}

extension MockRegistry.Core {
    /// The registry's exchanges that switched protocols, if a product keeps any (for the core's own
    /// reports).
    var switchedExchanges: (any SwitchedExchanges)? {
        let setting = settings.withLock { $0[ObjectIdentifier(MockRegistry.SwitchedExchangesSetting.self)] }
        return (setting as? MockRegistry.SwitchedExchangesSetting)?.exchanges
    }
}

/// An error that says MockNetwork was given something it cannot use (``MockNetworkError``, and a
/// product's own, such as a stub's missing file): a handler that throws one fails the test at the
/// handler's registration, besides failing the request.
package protocol MockInputError: Error, CustomStringConvertible {}

extension MockNetworkError: MockInputError {}
