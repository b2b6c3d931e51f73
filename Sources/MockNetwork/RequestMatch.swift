import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which requests a handler answers: a URL (or a host and path pattern), narrowed by rules that
/// must all hold.
///
/// ```swift
/// mocks.register(.url("https://api.example.com/search", query: .anyOrder)) { _ in .json("[]") }
/// mocks.register(.host("*.example.com", path: "/v1/users/*").method("DELETE")) { _ in .status(204) }
/// mocks.register(
///     .url("https://api.example.com/login").method("POST")
///         .header("Content-Type", "application/json")
///         .jsonBody(#"{"user": "ada", "password": "secret"}"#)
/// ) { _ in .json(#"{"token": "t"}"#) }
/// ```
///
/// When several handlers match a request, the most specific wins: an exact URL over one that
/// ignores query order, over one that ignores the query, over a host and path pattern; then the
/// one with more rules (method, headers, body, predicates); among equals, the latest registered.
public struct RequestMatch: Sendable, CustomStringConvertible {
    /// How a URL's query takes part in matching.
    public enum Query: Sendable, Equatable {
        /// The query must be the same, in the same order.
        case exact
        /// The same query items, in any order.
        case anyOrder
        /// Any query, or none.
        case ignored
    }

    enum Target: Sendable {
        /// A URL as its absolute string (what `URL(string:)` makes of it), and how its query matches.
        case url(String, Query)
        case pattern(host: String, path: String?)
        /// A path template on a host (a `*` pattern, or a literal host), and for a full URL's
        /// template the scheme, host and port it must have (`https://api.example.com`).
        case template(host: String, origin: String?, path: PathTemplate)
        case invalid(String)
        case invalidTemplate(String, reason: String)
    }

    enum BodyRule: Sendable {
        case bytes(Data)
        case json(JSONValue, text: String)
        case invalidJSON(String)
    }

    struct Predicate: Sendable {
        let name: String
        let test: @Sendable (URLRequest) -> Bool
    }

    /// The rules, in a box of their own: a match is one reference wide, so that passing one where a
    /// `RequestMatchConvertible` is expected (every `register`) stores it in place, with no
    /// allocation and copy of a dozen fields; a builder that changes a rule copies the box first.
    private var rules: Rules

    init(target: Target) { rules = Rules(target: target) }

    var target: Target {
        get { rules.target }
        set { unique().target = newValue }
    }
    var method: String? {
        get { rules.method }
        set { unique().method = newValue }
    }
    var headers: [(name: String, value: String)] {
        get { rules.headers }
        set { unique().headers = newValue }
    }
    var body: BodyRule? {
        get { rules.body }
        set { unique().body = newValue }
    }
    var predicates: [Predicate] {
        get { rules.predicates }
        set { unique().predicates = newValue }
    }
    /// Query items that must be present with these values; others may be there too.
    var queryItems: [(name: String, value: String)] {
        get { rules.queryItems }
        set { unique().queryItems = newValue }
    }
    /// What the body must carry, by a product's rule (MockNetworkGraphQL's operation): see ``ContentRule``.
    package var content: (any ContentRule)? {
        get { rules.content }
        set { unique().content = newValue }
    }
    /// Parts a multipart body must have.
    var parts: [PartRule] {
        get { rules.parts }
        set { unique().parts = newValue }
    }

    /// The box, copied first unless this match is its only holder.
    private mutating func unique() -> Rules {
        if !isKnownUniquelyReferenced(&rules) { rules = rules.copy() }
        return rules
    }

    // Changed only through `unique()`, which copies a box another match shares: a box is written
    // only by its one holder, and read by any number once shared, so no lock is needed.
    private final class Rules: @unchecked Sendable {
        var target: Target
        var method: String?
        var headers: [(name: String, value: String)] = []
        var body: BodyRule?
        var predicates: [Predicate] = []
        var queryItems: [(name: String, value: String)] = []
        var content: (any ContentRule)?
        var parts: [PartRule] = []

        init(target: Target) { self.target = target }

        func copy() -> Rules {
            let copy = Rules(target: target)
            (copy.method, copy.headers, copy.body, copy.predicates) = (method, headers, body, predicates)
            (copy.queryItems, copy.content, copy.parts) = (queryItems, content, parts)
            return copy
        }
    }

    /// The match of `url`, a URL's text (what `url(_:query:)` makes of a `String` or a `URL`).
    static func matching(url: String, query: Query) -> RequestMatch {
        if let template = template(url) { return template }
        guard let absolute = URLKeys.absoluteString(url) else { return RequestMatch(target: .invalid(url)) }
        return RequestMatch(target: .url(absolute, query))
    }

    /// Only requests whose query has each of these items with this value; other items may be
    /// there too (values compared percent-decoded).
    public func query(_ items: [String: String]) -> RequestMatch {
        var copy = self
        copy.queryItems += items.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        return copy
    }

    /// Exactly `url`, and `method` when one is given.
    static func exactly(_ url: String, method: String?) -> RequestMatch {
        method.map { RequestMatch.url(url).method($0) } ?? .url(url)
    }

    /// The match of a host pattern and a path pattern or template (see `host(_:path:)`).
    static func matching(host: String, path: String?) -> RequestMatch {
        if let path, PathTemplate.isTemplate(path) {
            switch PathTemplate.parse(path) {
            case .success(let template):
                return RequestMatch(target: .template(host: host.lowercased(), origin: nil, path: template))
            case .failure(let error):
                return RequestMatch(target: .invalidTemplate(path, reason: error.reason))
            }
        }
        return RequestMatch(target: .pattern(host: host.lowercased(), path: path))
    }

    /// A full URL whose path holds `{…}`, as a template; `nil` for any other URL.
    private static func template(_ url: String) -> RequestMatch? {
        // Most URLs hold no brace at all: one pass over the bytes tells, where the search below
        // (Foundation's `range(of:)`, then characters) was most of the cost of registering one.
        guard PathTemplate.isTemplate(url), let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterScheme.endIndex
        var path = afterScheme[authorityEnd...]
        var query: Substring?
        if let mark = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            if path[mark] == "?" { query = path[path.index(after: mark)...].prefix { $0 != "#" } }
            path = path[..<mark]
        }
        guard PathTemplate.isTemplate(path) else { return nil }
        let authority = afterScheme[..<authorityEnd].lowercased()
        let host = String(authority.split(separator: "@").last?.split(separator: ":").first ?? "")
        guard !host.isEmpty else { return RequestMatch(target: .invalid(url)) }
        switch PathTemplate.parse(String(path)) {
        case .failure(let error):
            return RequestMatch(target: .invalidTemplate(url, reason: error.reason))
        case .success(let template):
            var match = RequestMatch(
                target: .template(
                    host: host, origin: url[..<schemeEnd.lowerBound].lowercased() + "://" + authority, path: template))
            for item in (query ?? "").split(separator: "&") {
                let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in
                    (text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text))
                }
                match.queryItems.append((decode(pair[0]), pair.count > 1 ? decode(pair[1]) : ""))
            }
            return match
        }
    }

    /// Only requests with this HTTP method (`GET`, `POST`, …; compared case-insensitively).
    public func method(_ method: String) -> RequestMatch {
        var copy = self
        copy.method = method.uppercased()
        return copy
    }

    /// Only requests carrying this header value; the name is compared case-insensitively.
    public func header(_ name: String, _ value: String) -> RequestMatch {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// Only requests whose body is exactly these bytes.
    public func body(_ data: Data) -> RequestMatch {
        var copy = self
        copy.body = .bytes(data)
        return copy
    }

    /// Only requests whose body is JSON equal to `json`, whatever the key order and white space.
    public func jsonBody(_ json: String) -> RequestMatch {
        var copy = self
        copy.body = (try? JSONValue(json: json)).map { .json($0, text: json) } ?? .invalidJSON(json)
        return copy
    }

    /// Only requests for which `predicate` is true; `name` says what it checks, in failure messages.
    public func when(_ name: String = "custom predicate", _ predicate: @escaping @Sendable (URLRequest) -> Bool)
        -> RequestMatch
    {
        var copy = self
        copy.predicates.append(Predicate(name: name, test: predicate))
        return copy
    }

    /// The match in words, as failure messages show it: `POST https://… with Accept: …`.
    public var description: String {
        var parts: [String] = []
        if let method { parts.append(method) }
        switch target {
        case .pattern("*", nil) where content != nil: break
        case .url(_, .ignored) where content != nil: break  // after the content rule, below
        case .url(let url, .exact): parts.append(url)
        case .url(let url, .anyOrder): parts.append(url + " (query in any order)")
        case .url(let url, .ignored): parts.append(url + " (any query)")
        case .pattern(let host, let path): parts.append("host \(host)" + (path.map { " path \($0)" } ?? ""))
        case .template(let host, let origin, let path):
            parts.append(origin.map { $0 + path.text } ?? "host \(host) path \(path.text)")
        case .invalid(let text): parts.append("invalid URL \"\(text)\"")
        case .invalidTemplate(let text, _): parts.append("invalid template \"\(text)\"")
        }
        if !queryItems.isEmpty {
            parts.append("with query " + queryItems.map { "\($0.name)=\($0.value)" }.joined(separator: "&"))
        }
        for header in headers { parts.append("with \(header.name): \(header.value)") }
        switch body {
        case .bytes(let data): parts.append("with a body of \(data.count) bytes")
        case .json(_, let text), .invalidJSON(let text): parts.append("with JSON body \(text)")
        case nil: break
        }
        parts += bodyRuleWords
        if content != nil, case .url(let url, .ignored) = target { parts.append("at " + url) }
        for predicate in predicates { parts.append("when \(predicate.name)") }
        return parts.joined(separator: " ")
    }
}

/// A string literal is the match of its URL, as `.url(_:)` makes it: `register("https://api.example.com/user")`
/// reads as `register(.url("https://api.example.com/user"))`, interpolations included. A `String` value
/// becomes a match with `.url(_:)`.
extension RequestMatch: ExpressibleByStringInterpolation {
    /// The match `.url(_:)` makes of `url`: exactly this URL, or a template when its path holds `{name}`.
    public init(stringLiteral url: String) {
        self = .url(url)
    }
}
