import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// A registered handler. A class, so that filing and finding one copies a pointer, not the
    /// match and its rules.
    ///
    /// `@unchecked Sendable`: the two `var`s are read and written only inside `state.withLock`,
    /// like every other part of the registry's `State`; the rest is immutable.
    final class Route: @unchecked Sendable {
        let id: Int
        let match: RequestMatch
        let responders: [@Sendable (URLRequest) throws -> Reply]
        let repeatsLast: Bool
        var expectedCalls: Int?
        let location: SourceLocation
        var calls = 0

        init(
            id: Int, match: RequestMatch, responders: [@Sendable (URLRequest) throws -> Reply], repeatsLast: Bool,
            expectedCalls: Int?, location: SourceLocation
        ) {
            self.id = id
            self.match = match
            self.responders = responders
            self.repeatsLast = repeatsLast
            self.expectedCalls = expectedCalls
            self.location = location
        }

        /// The exact-URL key of a URL route, `nil` for patterns.
        var urlKey: String? {
            if case .url(let url, _) = match.target { return URLKeys.key(url, .exact) }
            return nil
        }
    }

    struct CachedResponse: Sendable {
        let status: Int
        let headers: [String: String]
        let response: HTTPURLResponse
    }

    /// The handlers, filed for a lookup that does not grow with their number: URL routes by the key
    /// of their URL (one index per way of matching the query), patterns in a list.
    struct State: Sendable {
        var routes: [Int: Route] = [:]
        var byURL: [RequestMatch.Query: [String: [Int]]] = [:]
        var patterns: [Int] = []
        var nextID = 0
        var requests: [RecordedRequest] = []
        var failures: [MockFailure] = []
        var inFlight: [Int: URLRequest] = [:]
        var responses: [String: CachedResponse] = [:]

        mutating func insert(_ route: Route) {
            switch route.match.target {
            case .url(let url, let query):
                let key = URLKeys.key(url, query)
                // One hash of the key in the common case, a URL's first route.
                if byURL[query, default: [:]][key, default: []].appendingCount(route.id) > 1,
                    let signature = route.match.signature,
                    let same = byURL[query]?[key]?.firstIndex(where: { routes[$0]?.match.signature == signature }),
                    let old = byURL[query]?[key]?.remove(at: same)
                {
                    routes[old] = nil
                }
            case .pattern:
                if !patterns.isEmpty, let signature = route.match.signature,
                    let same = patterns.firstIndex(where: { routes[$0]?.match.signature == signature })
                {
                    routes[patterns[same]] = nil
                    patterns.remove(at: same)
                }
                patterns.append(route.id)
            case .invalid:
                return
            }
            routes[route.id] = route
        }

        mutating func remove(url: URL) {
            let key = URLKeys.key(url, .exact)
            for (id, route) in routes where route.urlKey == key {
                routes[id] = nil
            }
            for query in byURL.keys {
                for (bucket, ids) in byURL[query] ?? [:] {
                    byURL[query]?[bucket] = ids.filter { routes[$0] != nil }
                }
            }
        }

        /// The most specific route that matches, the latest among equals.
        func bestRoute(for request: URLRequest, url: URL, body: Data) -> Route? {
            var best: Route?
            func consider(_ id: Int, checkURL: Bool) {
                guard let route = routes[id] else { return }
                if let current = best {
                    let (a, b) = (route.match.specificity, current.match.specificity)
                    if a < b || (a == b && route.id < current.id) { return }
                }
                let mismatches =
                    checkURL
                    ? route.match.mismatches(request, url: url, body: body)
                    : route.match.ruleMismatches(request, body: body)
                if mismatches.isEmpty { best = route }
            }
            for (query, index) in byURL {
                for id in index[URLKeys.key(url, query)] ?? [] { consider(id, checkURL: false) }
            }
            for id in patterns { consider(id, checkURL: true) }
            return best
        }
    }
}

extension Array {
    /// Appends `element` and returns the new count.
    fileprivate mutating func appendingCount(_ element: Element) -> Int {
        append(element)
        return count
    }
}
