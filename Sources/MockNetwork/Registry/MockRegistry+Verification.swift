import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How many requests a test expects to match, for `expect(_:count:)` in MockNetworkTesting.
public enum RequestCount: Sendable, Equatable, CustomStringConvertible {
    /// Exactly this many.
    case exactly(Int)
    /// This many or more.
    case atLeast(Int)
    /// This many or fewer.
    case atMost(Int)

    /// None at all.
    public static let never = RequestCount.exactly(0)

    /// Whether `count` requests meet this expectation.
    public func allows(_ count: Int) -> Bool {
        switch self {
        case .exactly(let expected): count == expected
        case .atLeast(let minimum): count >= minimum
        case .atMost(let maximum): count <= maximum
        }
    }

    /// The expectation in words: `exactly 2 requests`, `no request`.
    public var description: String { description(counting: "request") }

    /// The expectation in words, counting `noun`s: `exactly 2 operations`, `no operation`.
    func description(counting noun: String) -> String {
        func counted(_ count: Int) -> String { count == 1 ? "1 \(noun)" : "\(count) \(noun)s" }
        switch self {
        case .exactly(0): return "no \(noun)"
        case .exactly(let count): return "exactly \(counted(count))"
        case .atLeast(let count): return "at least \(counted(count))"
        case .atMost(let count): return "at most \(counted(count))"
        }
    }
}

/// Checking the traffic after the fact: which recorded requests a match describes, and whether
/// as many came as expected.
extension MockRegistry {
    /// The recorded requests that `match` describes, in the order they arrived (of those still in
    /// ``requests``).
    ///
    /// ```swift
    /// let posts = mocks.requests(matching: .url("https://api.example.com/orders").method("POST"))
    /// XCTAssertEqual(try posts.first?.json(Order.self).quantity, 2)
    /// ```
    ///
    /// A GraphQL match (MockNetworkGraphQL's `RequestMatch.graphQL(_:type:variables:allVariables:)`)
    /// describes a batch (a JSON array of operations) when one of its operations fits it and the
    /// request passes the match's other rules; the batch is returned once however many of its
    /// operations fit (`RecordedRequest.graphQLOperations` reads them all).
    ///
    /// A match no request can ever match (a URL without its scheme, a broken template, a JSON body
    /// that is not JSON) returns nothing and fails the test at this line, as registering it would.
    public func requests(
        matching match: RequestMatch,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> [RecordedRequest] {
        if let refusal = match.refusal(by: "requests(matching:)") {
            record(
                MockFailure(
                    message: refusal,
                    location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)))
            return []
        }
        return requests.filter { match.checked($0).count > 0 }
    }

    /// Fails the test that ends unless every handler registered answered at least one request
    /// (nock's `done()`, respx's `assert_all_called`): a handler nothing calls is a test that checks
    /// less than it says. Off by default; `MockNetworkTestCase` and the `.mockNetwork` trait offer it too.
    /// Defaults (``registerDefaults(_:)``) and an archive's entries are exempt: a suite shares them,
    /// and a test uses the few it needs.
    public var requiresEveryHandlerCalled: Bool {
        get { core.requiresEveryHandlerCalled.withLock { $0 } }
        set { core.requiresEveryHandlerCalled.withLock { $0 = newValue } }
    }

    /// The failure text when the requests `match` describes do not meet `count`; `nil` when they do.
    /// Names the requests that matched, every request seen, and the one nearest to the match.
    ///
    /// A GraphQL match counts operations: one for each request that carries one operation it
    /// describes, and for a batch one for each of its operations it describes (see
    /// ``requests(matching:fileID:filePath:line:column:)``). So a count reads the same whether the
    /// client batches its operations or not, and as a handler's `expectedCalls` counts them.
    package func countFailure(_ match: RequestMatch, _ count: RequestCount) -> String? {
        if let refusal = match.refusal(by: "expect(_:count:)") { return refusal }
        let all = requests
        var matching: [RecordedRequest] = []
        var total = 0
        var nearest: (request: RecordedRequest, why: [String])?
        for request in all {
            let (found, why) = match.checked(request)
            if found > 0 {
                matching.append(request)
                total += found
            } else if nearest.map({ why.count < $0.why.count }) ?? true {
                nearest = (request, why)
            }
        }
        guard !count.allows(total) else { return nil }
        // What the requests carry, as the kinds of content the registry and the match read tell.
        var kinds = state.withLock { $0.contentKinds }
        if let kind = match.content?.kind, !kinds.contains(where: { $0 == kind }) { kinds.append(kind) }
        func shown(_ request: RecordedRequest) -> String {
            let reading = BodyReading(request.request, body: request.body)
            let carried = kinds.lazy.compactMap { $0.shown(reading, includingSeveral: true) }.first
            return MockRegistry.shortened(
                "\(request.method) \(request.url.absoluteString)" + (carried.map { " (\($0))" } ?? ""))
        }
        let counted = count.description(counting: match.content?.kind.unit ?? "request")
        var lines = [
            "MockNetwork: expected \(counted) matching \(MockRegistry.shortened(match.description)), got \(total)."
        ]
        if !matching.isEmpty { lines.append("Matching: \(matching.map(shown).joined(separator: "; "))") }
        lines.append(
            "Requested (\(all.count)): \(all.isEmpty ? "nothing" : all.suffix(10).map(shown).joined(separator: "; "))"
                + (all.count > 10 ? " (the latest 10)" : ""))
        if total < minimum(count), let nearest {
            lines.append("Nearest: \(shown(nearest.request)) (\(nearest.why.joined(separator: "; ")))")
        }
        return lines.joined(separator: "\n")
    }

    private func minimum(_ count: RequestCount) -> Int {
        switch count {
        case .exactly(let value), .atLeast(let value): value
        case .atMost: 0
        }
    }

    /// Failures for handlers never called, when ``requiresEveryHandlerCalled`` is on.
    func unusedHandlerFailures(_ state: State) -> [MockFailure] {
        guard core.requiresEveryHandlerCalled.withLock({ $0 }) else { return [] }
        return state.routes.values.sorted { $0.id < $1.id }
            .filter { $0.rank == .test && $0.calls == 0 && $0.expectedCalls == nil }
            .map { route in
                MockFailure(
                    message:
                        "MockNetwork: the handler for \(MockRegistry.shortened(route.match.description)) was never "
                        + "called, and this test requires every handler to be (requiresEveryHandlerCalled). Check that "
                        + "the code under test makes this request, or remove the handler.",
                    location: route.location)
            }
    }
}
