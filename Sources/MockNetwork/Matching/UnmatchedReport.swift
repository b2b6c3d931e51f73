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
    func unmatchedFailure(_ request: RecordedRequest, backing: (any RegistryBacking)?) -> (
        error: URLError, report: String
    ) {
        let shown = MockRegistry.shortened(request.url.absoluteString)
        // The body as content and part rules read it, once for every route the report asks.
        let reading = BodyReading(request.request, body: request.body)
        let kinds = state.withLock { $0.contentKinds }
        // The one piece of content the request carries (a GraphQL operation), of the first kind
        // that finds one.
        let carried = kinds.lazy.compactMap { kind in
            kind.shown(reading, includingSeveral: false).map { (kind: kind, shown: $0) }
        }.first
        // Why a request that tried to carry content carries none; `nil` for one that carries some.
        let tried =
            carried == nil
            ? kinds.lazy.compactMap { kind in kind.problem(reading).map { (kind: kind, problem: $0) } }.first : nil
        let problem = tried?.problem
        let meant = tried.map { $0.kind.looksMeant(request) } ?? false
        let carrying = carried.map { " (\(MockRegistry.shortened($0.shown)))" } ?? ""
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
            // A content match fits any URL; it is near a request that carries its content, or one that
            // tried to and failed, when sent to the match's endpoint or looking as if it meant to.
            let fitting = Self.urlFitting(request, in: state).filter { route in
                guard let rule = route.match.content, rule.kind.lookupKeys(reading) == nil else { return true }
                guard let tried, tried.kind == rule.kind else { return false }
                if case .url = route.match.target { return true }  // its endpoint (`at`), which fits
                return meant
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
        // The nearest handler reads content (a GraphQL one): the fix is about what the body carries.
        var nearContent: (any ContentKind.Type)?
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
                    let otherKey = carried != nil && route.match.content?.asksOtherKey(reading) == true
                    let readsNoContent = problem != nil && route.match.content == nil
                    return 2 * why.count + (otherKey ? 200 : 0) + (readsNoContent ? 1 : 0)
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
                nearContent = route.match.content?.kind
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
        } else if !failedRules.isEmpty, let kind = nearContent, let problem, let near {
            lines.append(
                "Fix: the request carries no \(kind.name) \(kind.unit) (\(problem.reason)), so the \(kind.name) handler "
                    + "registered at \(near) cannot match it. Change the client's \(problem.part): "
                    + problem.fix.prefix(1).lowercased() + problem.fix.dropFirst())
        } else if !failedRules.isEmpty, let kind = nearContent, let near {
            lines.append(
                "Fix: the request's \(kind.unit) does not fit the \(kind.name) handler registered at \(near) "
                    + "(\(failedRules.joined(separator: "; "))). Make the client send what that match expects, or "
                    + "loosen the match there.")
        } else if let fix = carried?.kind.registerFix(reading), failedRules.isEmpty {
            lines.append(fix)
        } else if !failedRules.isEmpty, let near {
            lines.append(
                "Fix: the URL fits the handler registered at \(near), but not its rules (\(failedRules.joined(separator: "; "))). "
                    + "Make the client send what that match expects, or loosen the match there.")
        } else if let registered = onlyQueryDiffers {
            let path = registered.split(separator: "?", maxSplits: 1).first.map(String.init) ?? registered
            lines.append(
                "Fix: only the query differs. Register this URL, e.g. register(\"\(shown)\") { _ in .status(200) }; "
                    + "or let the handler take any query, .url(\"\(MockRegistry.shortened(path))\", query: .ignored); "
                    + "or require only the items that matter, .url(\"\(MockRegistry.shortened(path))\", query: .ignored)"
                    + ".query([\"name\": \"value\"])."
            )
        } else if let example = switchedExchanges?.unmatchedExample(for: request.request, shown: shown) {
            // A request to switch protocols (a socket's handshake): the product's registration for it.
            lines.append("Fix: register one for this URL, e.g. \(example), or correct the URL the client builds.")
        } else {
            lines.append(
                "Fix: register a handler for this URL, e.g. register(\"\(shown)\") { _ in .status(200) }, "
                    + "or correct the URL the client builds.")
        }
        let report = lines.joined(separator: "\n")
        record(MockFailure(message: report, location: near))
        let error = URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: summary
                    + (count == 0 ? " (nothing is registered" : " (nothing registered matches")
                    + MockFailure.reportedNote,
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
        out += state.contentFitting(request)
        let subject = PatternSubject(request.url)
        for id in state.patterns {
            guard let route = state.routes[id], let pattern = route.pattern,
                pattern.host.matches(subject.host), pattern.path?.matches(subject.path) ?? true
            else { continue }
            out.append(route)
        }
        return out
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
