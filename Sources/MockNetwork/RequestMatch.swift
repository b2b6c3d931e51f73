import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which requests a handler answers: a URL (or a host and path pattern), narrowed by rules that
/// must all hold.
///
/// ```swift
/// mocks.register(.url("https://api.example.com/search", query: .anyOrder)) { _ in try .json("[]") }
/// mocks.register(.host("*.example.com", path: "/v1/users/*").method("DELETE")) { _ in try .status(204) }
/// mocks.register(
///     .url("https://api.example.com/login").method("POST")
///         .header("Content-Type", "application/json")
///         .jsonBody(#"{"user": "ada", "password": "secret"}"#)
/// ) { _ in try .json(#"{"token": "t"}"#) }
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
        case invalid(String)
    }

    enum BodyRule: Sendable {
        case bytes(Data)
        case json(canonical: Data, text: String)
        case invalidJSON(String)
    }

    struct Predicate: Sendable {
        let name: String
        let test: @Sendable (URLRequest) -> Bool
    }

    var target: Target
    var method: String?
    var headers: [(name: String, value: String)] = []
    var body: BodyRule?
    var predicates: [Predicate] = []

    /// Requests for `url`; `query` says how its query must match.
    public static func url(_ url: String, query: Query = .exact) -> RequestMatch {
        guard let absolute = URLKeys.absoluteString(url) else { return RequestMatch(target: .invalid(url)) }
        return RequestMatch(target: .url(absolute, query))
    }

    /// Requests for `url`; `query` says how its query must match.
    public static func url(_ url: URL, query: Query = .exact) -> RequestMatch {
        // Through the text, so that a relative URL is reported as the text form reports it.
        .url(url.absoluteString, query: query)
    }

    /// Exactly `url`, and `method` when one is given.
    static func url(_ url: URL, method: String?) -> RequestMatch {
        method.map { RequestMatch.url(url).method($0) } ?? .url(url)
    }

    /// Requests to any host matching `host`, and when given, a path matching `path`. In both,
    /// `*` stands for any run of characters: `"*.example.com"`, `"/v1/users/*"`. Any scheme and query.
    public static func host(_ host: String, path: String? = nil) -> RequestMatch {
        RequestMatch(target: .pattern(host: host.lowercased(), path: path))
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
        copy.body = Self.canonicalJSON(Data(json.utf8)).map { .json(canonical: $0, text: json) } ?? .invalidJSON(json)
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
        case .url(let url, .exact): parts.append(url)
        case .url(let url, .anyOrder): parts.append(url + " (query in any order)")
        case .url(let url, .ignored): parts.append(url + " (any query)")
        case .pattern(let host, let path): parts.append("host \(host)" + (path.map { " path \($0)" } ?? ""))
        case .invalid(let text): parts.append("invalid URL \"\(text)\"")
        }
        for header in headers { parts.append("with \(header.name): \(header.value)") }
        switch body {
        case .bytes(let data): parts.append("with a body of \(data.count) bytes")
        case .json(_, let text), .invalidJSON(let text): parts.append("with JSON body \(text)")
        case nil: break
        }
        for predicate in predicates { parts.append("when \(predicate.name)") }
        return parts.joined(separator: " ")
    }
}
