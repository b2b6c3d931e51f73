import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Routes with a content rule (``ContentRule``: a GraphQL operation) in the route table: filed by
/// their kind and the key they match (an operation's name), so that a lookup among a thousand
/// operations tries the few of its name (and those for any name), not every one.
extension MockRegistry.State {
    /// The routes of one kind of content.
    struct ContentIndex {
        let kind: any ContentKind.Type
        var byKey: [String: [Int]] = [:]
        var anyKey: [Int] = []
    }

    /// The kinds of content the registered routes read, and those the registry was told it reads
    /// (``MockRegistry/reads(_:)``), for reports.
    var contentKinds: [any ContentKind.Type] {
        var kinds = contentIndex.values.map(\.kind)
        for kind in notedKinds where !kinds.contains(where: { $0 == kind }) { kinds.append(kind) }
        return kinds
    }

    mutating func insertContent(_ route: MockRegistry.Route, _ rule: any ContentRule) {
        let id = ObjectIdentifier(rule.kind)
        if let signature = route.signature, let replaced = contentBySignature.updateValue(route.id, forKey: signature),
            let old = routes.removeValue(forKey: replaced)?.match.content
        {
            let oldID = ObjectIdentifier(old.kind)
            if let key = old.lookupKey {
                contentIndex[oldID]?.byKey[key]?.removeAll { $0 == replaced }
            } else {
                contentIndex[oldID]?.anyKey.removeAll { $0 == replaced }
            }
        }
        if let key = rule.lookupKey {
            contentIndex[id, default: ContentIndex(kind: rule.kind)].byKey[key, default: []].append(route.id)
        } else {
            contentIndex[id, default: ContentIndex(kind: rule.kind)].anyKey.append(route.id)
        }
        routes[route.id] = route
    }

    /// The content routes that could answer the request `reading` reads: for each kind the request
    /// carries one piece of, those of its keys, and those for any key.
    func contentCandidates(_ reading: BodyReading) -> [Int] {
        var out: [Int] = []
        for index in contentIndex.values {
            guard let keys = index.kind.lookupKeys(reading) else { continue }
            for key in keys { out += index.byKey[key] ?? [] }
            out += index.anyKey
        }
        return out
    }

    /// Whether a content route's endpoint (`at(_:)`) fits `absolute`, a request's URL; any URL fits a
    /// route without one.
    func contentEndpointFits(_ route: MockRegistry.Route, _ absolute: String) -> Bool {
        guard case .url(let key, let query) = route.match.target else { return true }
        return URLKeys.key(absolute, query) == key
    }

    /// The content routes `remove(url)` takes: those at exactly that endpoint.
    mutating func removeContent(at url: String) {
        guard !contentIndex.isEmpty else { return }
        let key = URLKeys.key(url, .ignored)
        for index in contentIndex.values {
            for id in index.byKey.values.joined() + index.anyKey {
                guard let route = routes[id], case .url(let endpoint, _) = route.match.target, endpoint == key else {
                    continue
                }
                routes[id] = nil
                if let signature = route.signature, contentBySignature[signature] == id {
                    contentBySignature[signature] = nil
                }
            }
        }
        for kind in contentIndex.keys {
            for key in contentIndex[kind]?.byKey.keys.map({ $0 }) ?? [] {
                contentIndex[kind]?.byKey[key]?.removeAll { routes[$0] == nil }
            }
            contentIndex[kind]?.anyKey.removeAll { routes[$0] == nil }
        }
    }

    /// The request `recorded` split into the requests its pieces make alone (a GraphQL batch's
    /// operations), by the first kind of the registered routes that splits it; `nil` when none does.
    func split(_ recorded: RecordedRequest, _ reading: BodyReading)
        -> (kind: any ContentKind.Type, pieces: [(request: URLRequest, body: Data)])?
    {
        for index in contentIndex.values {
            if let pieces = index.kind.split(recorded, reading) { return (index.kind, pieces) }
        }
        return nil
    }

    /// How a request that carries several pieces, which `whole` matches, is answered when `whole` is a
    /// default or a backing's entry: piece by piece when a route that outranks it (a handler of the
    /// test's) matches one of the pieces alone and every piece has a route, as a request no route
    /// matches is; else whole. `.userCode` when an `inline` lookup of a piece would run user code.
    func splitWay(outranking whole: MockRegistry.Route, _ recorded: RecordedRequest, reading: BodyReading, inline: Bool)
        -> SplitWay
    {
        // The cheap checks first: a lookup that a default won pays only these.
        guard whole.rank != .test, !contentIndex.isEmpty, let (_, pieces) = split(recorded, reading) else {
            return .whole
        }
        var outranked = false
        for (request, body) in pieces {
            let found = bestRoute(
                for: request, url: recorded.url, body: body, reading: BodyReading(request, body: body), inline: inline)
            switch found {
            case .userCode: return .userCode
            case .none: return .whole
            case .route(let route): outranked = outranked || route.rank.rawValue > whole.rank.rawValue
            }
        }
        return outranked ? .byPiece : .whole
    }

    /// How a request of several pieces is answered: see ``splitWay(outranking:_:reading:inline:)``.
    enum SplitWay {
        case whole
        case byPiece
        case userCode
    }

    /// The content routes whose endpoint fits `request`'s URL, for the unmatched report.
    func contentFitting(_ request: RecordedRequest) -> [MockRegistry.Route] {
        let absolute = request.url.absoluteString
        return contentIndex.values.flatMap { $0.byKey.values.joined() + $0.anyKey }.compactMap { routes[$0] }
            .filter { contentEndpointFits($0, absolute) }
    }
}
