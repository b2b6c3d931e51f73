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

    /// The GraphQL routes whose endpoint fits `request`'s URL, for the unmatched report.
    func graphQLFitting(_ request: RecordedRequest) -> [MockRegistry.Route] {
        let absolute = request.url.absoluteString
        return (graphQLByName.values.joined() + graphQLAnyName).compactMap { routes[$0] }
            .filter { graphQLEndpointFits($0, absolute) }
    }
}
