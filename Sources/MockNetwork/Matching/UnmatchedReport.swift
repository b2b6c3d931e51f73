import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry.Core {
    /// The error for a request no handler matches, after recording the failure that explains it:
    /// what was asked, the nearest registered match and how it differs, and the fix.
    func unmatchedError(_ request: RecordedRequest, archive: ArchiveBinding?) -> URLError {
        unmatchedFailure(request, archive: archive).error
    }

    /// The error for a request no handler matches and the report recorded for it (what a served
    /// request's answer carries as its body).
    func unmatchedFailure(_ request: RecordedRequest, archive: ArchiveBinding?) -> (error: URLError, report: String) {
        let shown = MockRegistry.shortened(request.url.absoluteString)
        let summary =
            archive.map { "MockNetwork: no entry for \(request.method) \(shown) in the archive \($0.shownAs)" }
            ?? "MockNetwork: no handler for \(request.method) \(shown)"
        let (registered, count, fitting) = state.withLock { state in
            // The first ten registered, for the list; the routes whose URL fits, from the index.
            var first: [Route] = []
            for route in state.routes.values where first.count < 10 || route.id < first[9].id {
                first.insert(route, at: first.firstIndex { $0.id > route.id } ?? first.count)
                if first.count > 10 { first.removeLast() }
            }
            return (first, state.routes.count, Self.urlFitting(request, in: state))
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
        if count == 0 {
            lines.append("Nothing is registered.")
        } else {
            // A handler whose URL fits first (fewest failing rules); else the longest common start of
            // the URL. Only the nearest one's differences are worked out.
            let nearest: Route?
            if !fitting.isEmpty {
                nearest = fitting.min { a, b in
                    a.match.ruleMismatches(request.request, body: request.body).count
                        < b.match.ruleMismatches(request.request, body: request.body).count
                }
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
                let why = route.match.mismatches(request.request, url: request.url, body: request.body)
                if !fitting.isEmpty { failedRules = why }
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
        if let archive {
            lines.append("Fix: \(archive.fix) (or correct the URL the client builds).")
        } else if !failedRules.isEmpty, let near {
            lines.append(
                "Fix: the URL fits the handler registered at \(near), but not its rules (\(failedRules.joined(separator: "; "))). "
                    + "Make the client send what that match expects, or loosen the match there.")
        } else if let registered = onlyQueryDiffers {
            let path = registered.split(separator: "?", maxSplits: 1).first.map(String.init) ?? registered
            lines.append(
                "Fix: only the query differs. Register this URL, e.g. register(\"\(shown)\") { _ in try .status(200) }; "
                    + "or let the handler take any query, .url(\"\(MockRegistry.shortened(path))\", query: .ignored); "
                    + "or require only the items that matter, .url(\"\(MockRegistry.shortened(path))\").query([\"name\": \"value\"])."
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
