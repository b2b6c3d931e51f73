import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// A registered handler. A class, so that filing and finding one copies a pointer, not the
    /// match and its rules.
    ///
    /// `@unchecked Sendable`: the `var`s are read and written only inside `state.withLock`, like
    /// every other part of the registry's `State`; the rest is immutable.
    final class Route: @unchecked Sendable {
        let id: Int
        let match: RequestMatch
        let responders: [RouteResponder]
        let repeatsLast: Bool
        /// Which kind of registration it is: a test's own handlers outrank an archive's entries,
        /// which outrank the defaults, however each matches.
        let rank: Rank
        var expectedCalls: Int?
        let location: SourceLocation
        /// Whether answering runs the user's code (a handler), which must never run on Foundation's queue.
        let runsUserCode: Bool
        var calls = 0

        init(
            id: Int, match: RequestMatch, responders: [RouteResponder], repeatsLast: Bool,
            rank: Rank = .test, runsUserCode: Bool = true, expectedCalls: Int?, location: SourceLocation
        ) {
            self.rank = rank
            self.runsUserCode = runsUserCode
            self.id = id
            self.match = match
            self.responders = responders
            self.repeatsLast = repeatsLast
            self.expectedCalls = expectedCalls
            self.location = location
            // One switch: each `if case` on the target copied it, a cost every registration paid.
            switch match.target {
            case .url(let url, _): (urlKey, pattern, template) = (URLKeys.key(url, .exact), nil, nil)
            case .pattern(let host, let path):
                (urlKey, pattern, template) = (nil, CompiledPattern(host: host, path: path), nil)
            case .template(let host, let origin, let path):
                (urlKey, pattern, template) = (nil, nil, (CompiledGlob(host), origin, path))
            case .invalid, .invalidTemplate: (urlKey, pattern, template) = (nil, nil, nil)
            }
        }

        /// The exact-URL key of a URL route, `nil` for patterns (worked out once).
        let urlKey: String?
        /// A pattern route's host and path, compiled once.
        let pattern: CompiledPattern?
        /// A template route's host, origin (for a full URL's template) and path template.
        let template: (host: CompiledGlob, origin: String?, path: PathTemplate)?
        /// The match's signature and rank, worked out once, when first asked (building it takes the
        /// whole description, and a URL route needs it only when another is filed under its URL).
        /// Registering the same match again replaces a route of the same rank only: a test's
        /// handler never takes a default's place in the table, it outranks it.
        lazy var signature: String? = match.signature.map { rank == .test ? $0 : "\(rank.rawValue)|\($0)" }

        /// Its place in a lookup: rank, then specificity, then the latest registered.
        var order: (Int, Int, Int) { (rank.rawValue, match.specificity, id) }
    }

    /// What kind of registration a route is, from the lowest to the highest in a lookup.
    enum Rank: Int, Sendable {
        /// Registered inside `registerDefaults`: what a test starts with.
        case defaults
        /// An entry of what stands behind the handlers (``RegistryBacking``), such as a recorded file.
        case backing
        /// A handler the test registered.
        case test
    }

    /// The routes filed under one URL key: most URLs have one, so that one needs no array.
    enum Bucket: Sendable {
        case one(Int)
        case many([Int])

        var ids: [Int] {
            switch self {
            case .one(let id): [id]
            case .many(let ids): ids
            }
        }
    }

    struct CachedResponse: Sendable {
        let status: Int
        /// The handler's headers, before `Content-Length` was added for a body of `length` bytes.
        let headers: [String: String]
        let length: Int
        /// Whether the response has a `Content-Length` (a stream's has none).
        let sendsLength: Bool
        let response: HTTPURLResponse
    }
}
