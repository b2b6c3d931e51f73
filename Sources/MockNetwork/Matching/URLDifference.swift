import Foundation

/// How a requested URL differs from a registered one, in words, for unmatched-request failures.
enum URLDifference {
    /// The differences between `requested` and `registered`, most telling first; empty when equal.
    static func between(requested: URL, registered: URL, query: RequestMatch.Query = .exact) -> [String] {
        guard let have = URLComponents(url: requested, resolvingAgainstBaseURL: true),
            let want = URLComponents(url: registered, resolvingAgainstBaseURL: true)
        else {
            return requested == registered ? [] : ["URL \(requested.absoluteString) ≠ \(registered.absoluteString)"]
        }
        var out: [String] = []
        let (haveScheme, wantScheme) = (have.scheme ?? "", want.scheme ?? "")
        if haveScheme.lowercased() != wantScheme.lowercased() {
            out.append("scheme \(haveScheme) ≠ \(wantScheme)")
        }
        let (haveHost, wantHost) = (have.host ?? "", want.host ?? "")
        if haveHost != wantHost {
            out.append(
                haveHost.lowercased() == wantHost.lowercased()
                    ? "host case \(haveHost) ≠ \(wantHost)" : "host \(show(haveHost)) ≠ \(show(wantHost))")
        }
        if have.port != want.port {
            out.append("port \(have.port.map(String.init) ?? "none") ≠ \(want.port.map(String.init) ?? "none")")
        }
        let (havePath, wantPath) = (have.path, want.path)
        if havePath != wantPath {
            if havePath + "/" == wantPath {
                out.append(
                    "trailing slash: the registered path ends in \"/\", the requested \(show(havePath)) does not")
            } else if wantPath + "/" == havePath {
                out.append(
                    "trailing slash: the requested path ends in \"/\", the registered \(show(wantPath)) does not")
            } else {
                out.append("path \(show(havePath)) ≠ \(show(wantPath))")
            }
        }
        let (haveQuery, wantQuery) = (have.percentEncodedQuery, want.percentEncodedQuery)
        if query != .ignored, haveQuery != wantQuery {
            let haveItems = (haveQuery ?? "").split(separator: "&").sorted()
            let wantItems = (wantQuery ?? "").split(separator: "&").sorted()
            if haveItems == wantItems {
                if query == .anyOrder { return out }
                out.append("query order: requested ?\(haveQuery ?? ""), registered ?\(wantQuery ?? "")")
            } else {
                out.append(
                    "query \(haveQuery.map { "?" + $0 } ?? "(none)") ≠ \(wantQuery.map { "?" + $0 } ?? "(none)")")
            }
        }
        return out
    }

    private static func show(_ text: String) -> String { text.isEmpty ? "(empty)" : "\"\(text)\"" }
}
