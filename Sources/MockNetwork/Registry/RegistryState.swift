import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// The handlers, filed for a lookup that does not grow with their number: URL routes by the key
    /// of their URL (one index per way of matching the query), patterns in a list.
    struct State: Sendable {
        var routes: [Int: Route] = [:]
        var byURL: [RequestMatch.Query: [String: Bucket]] = [:]
        /// URL routes whose query matches loosely (`.anyOrder`, `.ignored`) by the exact key of their
        /// URL: what `remove` finds besides `byURL[.exact]` (kept apart, so the common exact route
        /// is filed once).
        var byExactKey: [String: [Int]] = [:]
        /// Pattern routes in the order registered; ids of replaced ones stay until the list is compacted.
        var patterns: [Int] = []
        /// The same, filed by host for patterns whose host has no `*`, and in one list for the others.
        var patternsByHost: [String: [Int]] = [:]
        var wildcardHostPatterns: [Int] = []
        /// The highest specificity any pattern registered had: a URL route above it needs no pattern tried.
        var topPatternSpecificity = Int.min
        /// Pattern routes by signature, to replace one registered again without a search.
        var patternBySignature: [String: Int] = [:]
        /// Template routes: a tree of path segments per literal host, and a list for hosts with a `*`.
        var templatesByHost: [String: TemplateTree] = [:]
        var wildcardHostTemplates: [Int] = []
        var templateBySignature: [String: Int] = [:]
        /// The highest specificity any template registered had.
        var topTemplateSpecificity = Int.min
        /// Routes with a content rule, by kind and key (see `RegistryState+Content.swift`); by
        /// signature, to replace one registered again.
        var contentIndex: [ObjectIdentifier: ContentIndex] = [:]
        var contentBySignature: [String: Int] = [:]
        /// Kinds of content the reports read though no route reads them (``MockRegistry/reads(_:)``).
        var notedKinds: [any ContentKind.Type] = []
        var nextID = 0
        var log: RequestLog
        var failures: [MockFailure] = []
        var inFlight: [Int: InFlight] = [:]
        /// Requests whose protocol Foundation made (on Linux, inside the task's `resume()`) that have
        /// not begun yet: counted from there, so a test's end waits for them.
        var created: [Int: Core.Created] = [:]
        /// How many requests Foundation made a protocol for, ever.
        var made = 0
        /// Those waiting for the requests above to change (``MockRegistry/settle()``), woken once.
        var changeWaiters: [ChangeWaiter] = []
        var responses: [String: CachedResponse] = [:]
        /// What stands behind the handlers (a product's, such as a recorded file), if any.
        var backing: (any RegistryBacking)?
        /// The gates `hold(_:)` made, asked for requests still held when a test ends.
        var gates: [RequestGate] = []
        /// The numbers of the logged requests `nextRequest(matching:)` has returned.
        var taken: Set<Int> = []
        /// `nextRequest(matching:)` calls waiting for the next request to be logged.
        var logWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0

        init(logLimit: Int, logged: Int = 0) {
            log = RequestLog(limit: logLimit, dropped: logged)
        }

        /// Notes what the request numbered `number` got, if it is still in the log.
        /// The change waiters, taken (none: no array is made).
        mutating func takeChangeWaiters() -> [ChangeWaiter] {
            guard !changeWaiters.isEmpty else { return [] }
            defer { changeWaiters = [] }
            return changeWaiters
        }

        mutating func settle(_ number: Int, _ outcome: RecordedRequest.Outcome) {
            log.update(number) { $0.outcome = outcome }
        }

        mutating func insert(_ route: Route) {
            if let rule = route.match.content { return insertContent(route, rule) }
            switch route.match.target {
            case .url(let url, let query):
                let exactKey = route.urlKey ?? URLKeys.key(url, .exact)
                let key = query == .exact ? exactKey : URLKeys.key(url, query)
                // One hash of the key in the common case, a URL's first route.
                let earlier = byURL[query, default: [:]].updateValue(.one(route.id), forKey: key)
                if let earlier {
                    var ids = earlier.ids
                    if let signature = route.signature,
                        let same = ids.firstIndex(where: { routes[$0]?.signature == signature })
                    {
                        let replaced = ids.remove(at: same)
                        routes[replaced] = nil
                        if query != .exact { byExactKey[exactKey]?.removeAll { $0 == replaced } }
                    }
                    byURL[query]?[key] = ids.isEmpty ? .one(route.id) : .many(ids + [route.id])
                }
                if query != .exact { byExactKey[exactKey, default: []].append(route.id) }
            case .pattern:
                if let signature = route.signature,
                    let replaced = patternBySignature.updateValue(route.id, forKey: signature)
                {
                    routes[replaced] = nil
                }
                patterns.append(route.id)
                topPatternSpecificity = max(topPatternSpecificity, route.match.specificity)
                if let host = route.pattern?.host.literal {
                    patternsByHost[host, default: []].append(route.id)
                } else {
                    wildcardHostPatterns.append(route.id)
                }
                // Compacted when replaced routes are most of the list, so it stays linear in the live ones.
                if patterns.count > 64, patterns.count > 2 * patternBySignature.count + 2 {
                    var live = Set(routes.keys)
                    live.insert(route.id)
                    patterns.removeAll { !live.contains($0) }
                    wildcardHostPatterns.removeAll { !live.contains($0) }
                    for host in patternsByHost.keys { patternsByHost[host]?.removeAll { !live.contains($0) } }
                }
            case .template(let host, _, let path):
                if let signature = route.signature,
                    let replaced = templateBySignature.updateValue(route.id, forKey: signature)
                {
                    routes[replaced] = nil
                }
                topTemplateSpecificity = max(topTemplateSpecificity, route.match.specificity)
                if host.contains("*") {
                    wildcardHostTemplates.append(route.id)
                } else {
                    templatesByHost[host, default: TemplateTree()].insert(path, id: route.id)
                }
            case .invalid, .invalidTemplate:
                return
            }
            routes[route.id] = route
        }

        /// Removes the URL routes registered for exactly `url`, whatever their other rules.
        mutating func remove(url: String) {
            removeContent(at: url)
            let exactKey = URLKeys.key(url, .exact)
            let ids = (byURL[.exact]?[exactKey]?.ids ?? []) + (byExactKey.removeValue(forKey: exactKey) ?? [])
            for id in ids {
                guard let route = routes.removeValue(forKey: id),
                    case .url(let registered, let query) = route.match.target
                else { continue }
                let key = URLKeys.key(registered, query)
                let left = byURL[query]?[key]?.ids.filter { $0 != id } ?? []
                byURL[query]?[key] = left.isEmpty ? nil : left.count == 1 ? .one(left[0]) : .many(left)
            }
        }

        /// What a lookup found.
        enum Found {
            case route(Route)
            case none
            /// An inline lookup met a `.when` predicate (user code), or a rule that reads a large body:
            /// the lookup goes on elsewhere.
            case userCode
        }

        /// The most specific route that matches, the latest among equals. With `inline`, a lookup
        /// that would call a `.when` predicate stops with `.userCode`. `reading` is the body as GraphQL
        /// and part rules read it, parsed once for every route that asks (and kept for the handler).
        func bestRoute(for request: URLRequest, url: URL, body: Data, reading: BodyReading, inline: Bool = false)
            -> Found
        {
            var best: Route?
            var needsUserCode = false
            func consider(_ id: Int, checkURL: Bool) {
                guard !needsUserCode, let route = routes[id] else { return }
                if let current = best, route.order < current.order { return }
                if inline, route.match.leavesFoundationsQueue(bodySize: body.count) {
                    needsUserCode = true
                    return
                }
                // The URL fits (it is the key the route was found under): the rules decide, with no
                // failure text built (an endpoint may have a thousand content routes).
                let matches =
                    checkURL
                    ? route.match.mismatches(request, url: url, body: body, reading: reading).isEmpty
                    : route.match.rulesMatch(request, body: body, reading: reading)
                if matches { best = route }
            }
            let absolute = url.absoluteString
            // Content routes, found by their key (an operation's name): the body is read only when
            // there are some.
            if !contentIndex.isEmpty {
                // A large body is read off Foundation's queue, which every session shares.
                if inline, body.count > BodyReading.inlineLimit { return .userCode }
                for id in contentCandidates(reading) {
                    guard !needsUserCode, let route = routes[id], contentEndpointFits(route, absolute) else { continue }
                    consider(id, checkURL: false)
                }
            }
            for (query, index) in byURL {
                switch index[URLKeys.key(absolute, query)] {
                case .one(let id): consider(id, checkURL: false)
                case .many(let ids): for id in ids { consider(id, checkURL: false) }
                case nil: break
                }
            }
            // Templates, then patterns, are tried only when one could outrank what was found (a URL
            // route is more specific, unless it is an archive's or a default, which any handler overrides).
            if topTemplateSpecificity > Int.min,
                best.map({ $0.rank != .test || $0.match.specificity <= topTemplateSpecificity }) ?? true
            {
                let subject = TemplateSubject(url)
                func considerTemplate(_ id: Int) {
                    guard !needsUserCode, let route = routes[id], let template = route.template else { return }
                    if let current = best, route.order < current.order { return }
                    if let origin = template.origin {
                        guard subject.origin == origin else { return }
                    } else if !template.host.isLiteral {
                        guard template.host.matches(Array(subject.host.utf8)),
                            template.path.capture(subject.path) != nil
                        else { return }
                    }
                    if inline, route.match.leavesFoundationsQueue(bodySize: body.count) {
                        needsUserCode = true
                        return
                    }
                    if route.match.rulesMatch(request, body: body, reading: reading) { best = route }
                }
                for id in templatesByHost[subject.host]?.candidates(subject.path) ?? [] { considerTemplate(id) }
                for id in wildcardHostTemplates { considerTemplate(id) }
            }
            if !patterns.isEmpty,
                best.map({ $0.rank != .test || $0.match.specificity <= topPatternSpecificity }) ?? true
            {
                let subject = PatternSubject(url)
                func considerPattern(_ id: Int) {
                    guard !needsUserCode, let route = routes[id], let pattern = route.pattern else { return }
                    if let current = best, route.order < current.order { return }
                    // The cheapest checks first: host, path, then the other rules.
                    guard pattern.host.matches(subject.host), pattern.path?.matches(subject.path) ?? true else {
                        return
                    }
                    if inline, route.match.leavesFoundationsQueue(bodySize: body.count) {
                        needsUserCode = true
                        return
                    }
                    if route.match.rulesMatch(request, body: body, reading: reading) { best = route }
                }
                for id in patternsByHost[subject.hostText] ?? [] { considerPattern(id) }
                for id in wildcardHostPatterns { considerPattern(id) }
            }
            if needsUserCode { return .userCode }
            return best.map { .route($0) } ?? .none
        }
    }
}
