import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry.Core {
    /// The error for a request no handler matches, after recording the failure that explains it:
    /// what was asked, the nearest registered match and how it differs, and the fix.
    func unmatchedError(_ request: RecordedRequest, archive: ArchiveBinding?) -> URLError {
        let shown = MockRegistry.shortened(request.url.absoluteString)
        let summary =
            archive == nil
            ? "MockNetwork: no handler for \(request.method) \(shown)"
            : "MockNetwork: no entry for \(request.method) \(shown) in the archive"
        let registered = state.withLock { state in state.routes.values.sorted { $0.id < $1.id } }
        var lines = [summary + (archive.map { " \($0.file.path)." } ?? ".")]
        // Reported at the nearest registration, where the fix most likely goes.
        var near: SourceLocation?
        if registered.isEmpty {
            lines.append("Nothing is registered.")
        } else {
            // A handler whose URL fits first; then fewest failing rules; then the longest common start of the URL.
            let requestedText = Array(request.url.absoluteString.utf8)
            var nearest: (route: Route, why: [String], rank: (Int, Int, Int))?
            for route in registered {
                let why = route.match.mismatches(request.request, url: request.url, body: request.body)
                let urlFits = why.count == route.match.ruleMismatches(request.request, body: request.body).count
                let rank = (urlFits ? 0 : 1, why.count, -Self.commonPrefix(requestedText, route.urlKey ?? ""))
                if let best = nearest, best.rank <= rank { continue }
                nearest = (route, why, rank)
            }
            if let (route, why, _) = nearest {
                near = route.location
                lines.append(
                    "Nearest: \(MockRegistry.shortened(route.match.description)) (\(why.joined(separator: "; ")))")
            }
            lines.append("Registered (\(registered.count)):")
            lines += registered.prefix(10).map { "  \(MockRegistry.shortened($0.match.description))" }
            if registered.count > 10 { lines.append("  … and \(registered.count - 10) more") }
        }
        if let archive {
            lines.append(
                "Fix: record it from the real server, which rewrites this test's archive: "
                    + archive.recordCommand + " (or correct the URL the client builds).")
        } else {
            lines.append(
                "Fix: register a handler for this URL, e.g. register(\"\(shown)\") { _ in try .status(200) }, "
                    + "or correct the URL the client builds.")
        }
        record(MockFailure(message: lines.joined(separator: "\n"), location: near))
        return URLError(
            .resourceUnavailable,
            userInfo: [
                NSLocalizedDescriptionKey: summary
                    + " (nothing registered matches; see the test's failure for the nearest match).",
                NSURLErrorFailingURLErrorKey: request.url,
            ])
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
