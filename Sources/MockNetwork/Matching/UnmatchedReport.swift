import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry.Core {
    /// The error for a request no handler matches, after recording the failure that explains it:
    /// what was asked, the nearest registered match and how it differs, and the fix.
    func unmatchedError(_ request: RecordedRequest, backing: (any RegistryBacking)?) -> URLError {
        unmatchedFailure(request, backing: backing).error
    }

    /// The error for a request no handler matches and the report recorded for it (what a served
    /// request's answer carries as its body).
    func unmatchedFailure(_ request: RecordedRequest, backing: (any RegistryBacking)?) -> (error: URLError, report: String) {
        let shown = MockRegistry.shortened(request.url.absoluteString)
        // The body as GraphQL and part rules read it, once for every route the report asks.
        let reading = BodyReading(request.request, body: request.body)
        let operation = reading.operation
        // Why a request that tried GraphQL carries no operation; `nil` for one that carries one, or a batch.
        let problem = operation == nil ? reading.problem : nil
        let meansGraphQL = problem != nil && Self.meansGraphQL(request)
        let carrying = operation.map { " (\(MockRegistry.shortened($0.description)))" } ?? ""
        let summary =
            backing.map { $0.unmatchedHeadline("\(request.method) \(shown)\(carrying)") }
            ?? "MockNetwork: no handler for \(request.method) \(shown)\(carrying)"
        let (registered, count, fitting) = state.withLock { state in
            // The first ten registered, for the list; the routes whose URL fits, from the index.
            var first: [Route] = []
            for route in state.routes.values where first.count < 10 || route.id < first[9].id {
                first.insert(route, at: first.firstIndex { $0.id > route.id } ?? first.count)
                if first.count > 10 { first.removeLast() }
            }
            // A GraphQL match fits any URL; it is near a request that carries an operation, or one that
            // tried to and failed, when sent to the match's endpoint or looking like GraphQL.
            let fitting = Self.urlFitting(request, in: state).filter { route in
                guard route.match.graphQL != nil, operation == nil else { return true }
                guard problem != nil else { return false }
                if case .url = route.match.target { return true }  // its endpoint (`at`), which fits
                return meansGraphQL
            }
            return (first, state.routes.count, fitting)
        }
        var lines = [summary + "."]
        if let hosts = unmatched.passedHosts, !hosts.isEmpty {
            lines.append(
                "It did not go to the network: its host \(request.url.host ?? "(none)") is not one of "
                    + "\(unmatched.hostList).")
        }
        // Reported at the nearest registration, where the fix most likely goes.
        var near: SourceLocation?
        // The rules the nearest handler whose URL fits says no on: what the fix is about.
        var failedRules: [String] = []
        // The nearest URL differs from the request's only in its query: the fix may be a query rule.
        var onlyQueryDiffers: String?
        // The nearest handler is a GraphQL one: the fix is about the operation.
        var nearOperation = false
        if count == 0 {
            lines.append("Nothing is registered.")
        } else {
            // A handler whose URL fits first (fewest failing rules); else the longest common start of
            // the URL. Only the nearest one's differences are worked out.
            let nearest: Route?
            if !fitting.isEmpty {
                // Fewest failing rules; a GraphQL match of another operation name is far, and for a
                // request that tried GraphQL and failed, a GraphQL match is nearer than another as near.
                func distance(_ route: Route) -> Int {
                    let why = route.match.ruleMismatches(request.request, body: request.body, reading: reading)
                    let otherName =
                        operation.flatMap { operation in route.match.graphQL?.name.map { $0 != operation.name } }
                        ?? false
                    let readsNoOperation = problem != nil && route.match.graphQL == nil
                    return 2 * why.count + (otherName ? 200 : 0) + (readsNoOperation ? 1 : 0)
                }
                nearest = fitting.min { distance($0) < distance($1) }
            } else {
                let requestedText = Array(request.url.absoluteString.utf8)
                nearest = state.withLock { state in
                    var best: (route: Route, prefix: Int)?
                    for route in state.routes.values {
                        let prefix = Self.commonPrefix(requestedText, route.urlKey ?? route.match.description)
                        if let current = best,
                            current.prefix > prefix || current.prefix == prefix && current.route.id < route.id
                        {
                            continue
                        }
                        best = (route, prefix)
                    }
                    return best?.route
                }
            }
            if let route = nearest {
                near = route.location
                let why = route.match.mismatches(
                    request.request, url: request.url, body: request.body, reading: reading)
                if !fitting.isEmpty { failedRules = why }
                nearOperation = route.match.graphQL != nil
                if fitting.isEmpty, !why.isEmpty, why.allSatisfy({ $0.hasPrefix("query") }),
                    case .url(let registered, _) = route.match.target
                {
                    onlyQueryDiffers = registered
                }
                lines.append(
                    "Nearest: \(MockRegistry.shortened(route.match.description)) (\(why.joined(separator: "; ")))")
            }
            lines.append("Registered (\(count)):")
            lines += registered.map { "  \(MockRegistry.shortened($0.match.description))" }
            if count > 10 { lines.append("  … and \(count - 10) more") }
        }
        if let backing {
            lines.append("Fix: \(backing.unmatchedFix) (or correct the URL the client builds).")
        } else if !failedRules.isEmpty, nearOperation, let problem, let near {
            lines.append(
                "Fix: the request carries no GraphQL operation (\(problem.reason)), so the GraphQL handler registered "
                    + "at \(near) cannot match it. Change the client's \(problem.part): "
                    + problem.fix.prefix(1).lowercased() + problem.fix.dropFirst())
        } else if !failedRules.isEmpty, nearOperation, let near {
            lines.append(
                "Fix: the request's operation does not fit the GraphQL handler registered at \(near) "
                    + "(\(failedRules.joined(separator: "; "))). Make the client send what that match expects, or "
                    + "loosen the match there.")
        } else if let operation, failedRules.isEmpty {
            let name = operation.name.map { "\"\($0)\"" } ?? "type: .\(operation.type?.rawValue ?? "query")"
            lines.append(
                "Fix: register a handler for this operation, e.g. register(.graphQL(\(name))) { request, operation in "
                    + "try .graphQL(data: \"{}\", for: request) }.")
        } else if !failedRules.isEmpty, let near {
            lines.append(
                "Fix: the URL fits the handler registered at \(near), but not its rules (\(failedRules.joined(separator: "; "))). "
                    + "Make the client send what that match expects, or loosen the match there.")
        } else if let registered = onlyQueryDiffers {
            let path = registered.split(separator: "?", maxSplits: 1).first.map(String.init) ?? registered
            lines.append(
                "Fix: only the query differs. Register this URL, e.g. register(\"\(shown)\") { _ in try .status(200) }; "
                    + "or let the handler take any query, .url(\"\(MockRegistry.shortened(path))\", query: .ignored); "
                    + "or require only the items that matter, .url(\"\(MockRegistry.shortened(path))\", query: .ignored)"
                    + ".query([\"name\": \"value\"])."
            )
        } else {
            lines.append(
                "Fix: register a handler for this URL, e.g. register(\"\(shown)\") { _ in try .status(200) }, "
                    + "or correct the URL the client builds.")
        }
        let report = lines.joined(separator: "\n")
        record(MockFailure(message: report, location: near))
        let error = URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: summary
                    + " (nothing registered matches; see the test's failure for the nearest match).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
        return (error, report)
    }

    /// The routes whose URL (or host and path pattern) fits the request, so that only their other
    /// rules failed: found through the index, not by trying every route.
    private static func urlFitting(_ request: RecordedRequest, in state: MockRegistry.State) -> [Route] {
        var out: [Route] = []
        let absolute = request.url.absoluteString
        for (query, index) in state.byURL {
            for id in index[URLKeys.key(absolute, query)]?.ids ?? [] {
                if let route = state.routes[id] { out.append(route) }
            }
        }
        let path = PathTemplate.segments(of: request.url)
        for id in state.templatesByHost[(request.url.host ?? "").lowercased()]?.candidates(path) ?? [] {
            if let route = state.routes[id],
                route.template?.origin.map({ RequestMatch.originMatches(request.url, $0) }) ?? true
            {
                out.append(route)
            }
        }
        out += state.graphQLFitting(request)
        let subject = PatternSubject(request.url)
        for id in state.patterns {
            guard let route = state.routes[id], let pattern = route.pattern,
                pattern.host.matches(subject.host), pattern.path?.matches(subject.path) ?? true
            else { continue }
            out.append(route)
        }
        return out
    }

    /// Whether a request that carries no operation meant to carry one: `graphql` in its path or its
    /// `Content-Type`, as where GraphQL endpoints are and how some clients label the body. (A GraphQL
    /// match at any URL fits every request, a REST one too: its fix is about the URL then.)
    private static func meansGraphQL(_ request: RecordedRequest) -> Bool {
        let contentType = request.request.value(forHTTPHeaderField: "Content-Type") ?? ""
        return request.url.path.range(of: "graphql", options: .caseInsensitive) != nil
            || contentType.range(of: "graphql", options: .caseInsensitive) != nil
    }

    private static func commonPrefix(_ a: [UInt8], _ b: String) -> Int {
        var count = 0
        for (x, y) in zip(a, b.utf8) {
            guard x == y else { break }
            count += 1
        }
        return count
    }
}
