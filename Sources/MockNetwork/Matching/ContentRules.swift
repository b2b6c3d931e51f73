import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a product reads inside request bodies, such as MockNetworkGraphQL's operations: the core
/// files routes by it, finds them, splits a request that carries several, counts and reports
/// through it, and knows no kind of content itself.
package protocol ContentKind: Sendable {
    /// What messages call the content: `GraphQL`.
    static var name: String { get }
    /// What one piece of it is called when checks count them: `operation`.
    static var unit: String { get }
    /// The keys a lookup tries for the request `reading` reads (routes filed under them, besides
    /// those for any key); `[]` for those for any key only; `nil` when the request carries no one
    /// piece of this content (none, or several), so that no route of this kind matches it.
    static func lookupKeys(_ reading: BodyReading) -> [String]?
    /// A few words for the one piece the request carries (`query GetUser {"id": "7"}`), or with
    /// `includingSeveral` the several it carries (`batch: …`); `nil` when it carries none.
    static func shown(_ reading: BodyReading, includingSeveral: Bool) -> String?
    /// Why a request that tried to carry this content carries none; `nil` when it carries some, or
    /// never tried.
    static func problem(_ reading: BodyReading) -> ContentProblem?
    /// Whether a request that carries none looks as if it meant to (`graphql` in its path).
    static func looksMeant(_ request: RecordedRequest) -> Bool
    /// A request that carries several pieces (a batch), as the requests each piece makes alone;
    /// `nil` for any other. Cheap for a request that is no such thing.
    static func split(_ recorded: RecordedRequest, _ reading: BodyReading) -> [(request: URLRequest, body: Data)]?
    /// The answer to a split request, made of each piece's answer (header fields, body) in order.
    static func joined(_ answers: [(headers: [String: String], body: Data)]) throws -> MockResponse
    /// The unmatched report's fix for a request that carries one piece no route fits; `nil` when
    /// it carries none.
    static func registerFix(_ reading: BodyReading) -> String?
}

/// Why a request carries none of a content it tried to: what is wrong, the part of the request
/// to change, and how.
package struct ContentProblem: Sendable {
    package let reason: String
    package let part: String
    package let fix: String

    package init(reason: String, part: String, fix: String) {
        self.reason = reason
        self.part = part
        self.fix = fix
    }
}

/// A rule of a ``RequestMatch`` on what the body carries, of one ``ContentKind``: a match with one
/// outranks every match without (an app sends all its GraphQL operations to one URL), and fits any
/// URL unless an endpoint narrows it.
package protocol ContentRule: Sendable {
    /// The kind of content it reads.
    var kind: any ContentKind.Type { get }
    /// How much it narrows, among matches of its kind.
    var specificity: Int { get }
    /// The rule in words, for the match's description.
    var words: String { get }
    /// The key routes with this rule are filed under (an operation's name); `nil` for any.
    var lookupKey: String? { get }
    /// Whether the request `reading` reads holds it, building no failure text.
    func holds(_ reading: BodyReading) -> Bool
    /// Why the request does not hold it, one phrase each; empty when it does.
    func mismatches(_ reading: BodyReading) -> [String]
    /// For checks after the fact, of a request that carries several pieces: how many fit, and when
    /// none does, why the nearest does not (phrases that say which piece); `nil` for a request that
    /// carries no several.
    func counted(_ reading: BodyReading) -> (fitting: Int, nearest: [String])?
    /// Whether it asks for another key than the request's (another operation name): far from it,
    /// in the unmatched report.
    func asksOtherKey(_ reading: BodyReading) -> Bool
}

extension RequestMatch {
    /// Requests to any URL whose body holds `rule`.
    package static func carrying(_ rule: any ContentRule) -> RequestMatch {
        var match = RequestMatch(target: .pattern(host: "*", path: nil))
        match.content = rule
        return match
    }

    /// The same match, only for requests to `endpoint`, whatever their query.
    package func onlyAt(_ endpoint: String) -> RequestMatch {
        var copy = self
        copy.target =
            URLKeys.absoluteString(endpoint).map { .url(URLKeys.key($0, .ignored), .ignored) } ?? .invalid(endpoint)
        return copy
    }
}

extension MockRegistry {
    /// Makes the registry's reports read `kind` even where no route of it is registered: an
    /// unmatched request then says what it carries, and how to register a handler for it.
    /// MockNetworkTesting and MockNetworkApp tell the registries they make of the kinds they bring.
    package func reads(_ kind: any ContentKind.Type) {
        state.withLock { state in
            if !state.notedKinds.contains(where: { $0 == kind }) { state.notedKinds.append(kind) }
        }
    }
}
