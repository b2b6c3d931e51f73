import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// GraphQL routes in the route table: filed by the operation name they match, so that a lookup among
/// a thousand operations tries the few of its name (and those for any name), not every one.
extension MockRegistry.State {
    mutating func insertGraphQL(_ route: MockRegistry.Route) {
        let name = route.match.graphQL?.name
        if let signature = route.signature, let replaced = graphQLBySignature.updateValue(route.id, forKey: signature) {
            routes[replaced] = nil
            if let name {
                graphQLByName[name]?.removeAll { $0 == replaced }
            } else {
                graphQLAnyName.removeAll { $0 == replaced }
            }
        }
        if let name { graphQLByName[name, default: []].append(route.id) } else { graphQLAnyName.append(route.id) }
        routes[route.id] = route
    }

    /// The GraphQL routes that could answer `operation`: those of its name, and those for any name.
    func graphQLCandidates(_ operation: GraphQLOperation) -> [Int] {
        (operation.name.flatMap { graphQLByName[$0] } ?? []) + graphQLAnyName
    }

    /// Whether a GraphQL route's endpoint (`at(_:)`) fits `absolute`, a request's URL; any URL fits a
    /// route without one.
    func graphQLEndpointFits(_ route: MockRegistry.Route, _ absolute: String) -> Bool {
        guard case .url(let key, let query) = route.match.target else { return true }
        return URLKeys.key(absolute, query) == key
    }

    /// The GraphQL routes `remove(url)` takes: those at exactly that endpoint.
    mutating func removeGraphQL(at url: String) {
        let key = URLKeys.key(url, .ignored)
        for id in graphQLByName.values.joined() + graphQLAnyName {
            guard let route = routes[id], case .url(let endpoint, _) = route.match.target, endpoint == key else {
                continue
            }
            routes[id] = nil
            if let signature = route.signature, graphQLBySignature[signature] == id {
                graphQLBySignature[signature] = nil
            }
        }
        for name in graphQLByName.keys { graphQLByName[name]?.removeAll { routes[$0] == nil } }
        graphQLAnyName.removeAll { routes[$0] == nil }
    }

    /// How a batch that `whole` matches is answered, when `whole` is a default or an archive's entry:
    /// operation by operation when a route that outranks it (a handler of the test's) matches one of
    /// the batch's operations alone and every operation has a route, as a batch no route matches is;
    /// else whole. `.userCode` when an `inline` lookup of an operation would run user code.
    func batchWay(outranking whole: MockRegistry.Route, _ recorded: RecordedRequest, reading: BodyReading, inline: Bool)
        -> BatchWay
    {
        // The cheap checks first: a lookup that a default won pays only these.
        guard whole.rank != .test, !graphQLByName.isEmpty || !graphQLAnyName.isEmpty,
            recorded.method.uppercased() == "POST",
            recorded.body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "["),
            reading.batch != nil, let operations = MockRegistry.operationRequests(of: recorded)
        else { return .whole }
        var outranked = false
        for (request, body) in operations {
            let found = bestRoute(
                for: request, url: recorded.url, body: body, reading: BodyReading(request, body: body), inline: inline)
            switch found {
            case .userCode: return .userCode
            case .none: return .whole
            case .route(let route): outranked = outranked || route.rank.rawValue > whole.rank.rawValue
            }
        }
        return outranked ? .byOperation : .whole
    }

    /// How a batch is answered: see ``batchWay(outranking:_:reading:inline:)``.
    enum BatchWay {
        case whole
        case byOperation
        case userCode
    }

    /// The GraphQL routes whose endpoint fits `request`'s URL, for the unmatched report.
    func graphQLFitting(_ request: RecordedRequest) -> [MockRegistry.Route] {
        let absolute = request.url.absoluteString
        return (graphQLByName.values.joined() + graphQLAnyName).compactMap { routes[$0] }
            .filter { graphQLEndpointFits($0, absolute) }
    }
}

extension MockRegistry {
    /// The requests a GraphQL batch's operations make alone: `recorded` with each operation as its
    /// JSON body, in order; `nil` for a request that is no batch of operations sent as JSON.
    static func operationRequests(of recorded: RecordedRequest) -> [(request: URLRequest, body: Data)]? {
        let contentType = recorded.request.value(forHTTPHeaderField: "Content-Type") ?? ""
        guard recorded.method.uppercased() == "POST", !HeaderValue(contentType).lowercased.hasPrefix("multipart/"),
            case .array(let elements)? = try? JSONValue(json: recorded.body), !elements.isEmpty
        else { return nil }
        return elements.map { element in
            var single = recorded.request
            let body = Data(element.description.utf8)
            single.httpBody = body
            single.setValue(nil, forHTTPHeaderField: "Content-Length")
            return (single, body)
        }
    }
}
