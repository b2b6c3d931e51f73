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
        case url(URL, Query)
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
        guard let parsed = URL(string: url), parsed.scheme != nil else { return RequestMatch(target: .invalid(url)) }
        return RequestMatch(target: .url(parsed, query))
    }

    /// Requests for `url`; `query` says how its query must match.
    public static func url(_ url: URL, query: Query = .exact) -> RequestMatch {
        RequestMatch(target: .url(url, query))
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
        case .url(let url, .exact): parts.append(url.absoluteString)
        case .url(let url, .anyOrder): parts.append(url.absoluteString + " (query in any order)")
        case .url(let url, .ignored): parts.append(url.absoluteString + " (any query)")
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

    // MARK: Matching

    /// How specific this match is: the kind of target first, then the number of rules.
    var specificity: Int {
        let base: Int
        switch target {
        case .url(_, .exact): base = 400
        case .url(_, .anyOrder): base = 300
        case .url(_, .ignored): base = 200
        case .pattern(_, let path): base = 100 + (path == nil ? 0 : 10)
        case .invalid: base = 0
        }
        return base + (method == nil ? 0 : 1) + headers.count + (body == nil ? 0 : 1) + predicates.count
    }

    /// A key that identical matches share, so registering one again replaces the other;
    /// `nil` for matches with predicates, which cannot be compared.
    var signature: String? {
        predicates.isEmpty ? description : nil
    }

    /// Why `request` does not match, one phrase per rule that fails; empty when it matches.
    func mismatches(_ request: URLRequest, url: URL, body requestBody: Data) -> [String] {
        var out: [String] = []
        switch target {
        case .url(let registered, let query):
            if URLKeys.key(url, query) != URLKeys.key(registered, query) {
                out += URLDifference.between(requested: url, registered: registered, query: query)
                if out.isEmpty { out.append("URL \(url.absoluteString) ≠ \(registered.absoluteString)") }
            }
        case .pattern(let host, let path):
            let requestHost = (url.host ?? "").lowercased()
            if !Glob.matches(host, requestHost) { out.append("host \"\(requestHost)\" does not match \"\(host)\"") }
            if let path, !Glob.matches(path, url.path) { out.append("path \"\(url.path)\" does not match \"\(path)\"") }
        case .invalid(let text):
            out.append("the registered URL \"\(text)\" is not an absolute URL")
        }
        return out + ruleMismatches(request, body: requestBody)
    }

    /// Why `request` fails the rules besides the URL: method, headers, body, predicates.
    func ruleMismatches(_ request: URLRequest, body requestBody: Data) -> [String] {
        var out: [String] = []
        if let method, method != (request.httpMethod ?? "GET").uppercased() {
            out.append("method \(request.httpMethod ?? "GET") ≠ \(method)")
        }
        for header in headers {
            if let value = request.value(forHTTPHeaderField: header.name) {
                if value != header.value { out.append("header \(header.name) \"\(value)\" ≠ \"\(header.value)\"") }
            } else {
                out.append("header \(header.name) missing")
            }
        }
        switch body {
        case .bytes(let data) where data != requestBody:
            out.append("body differs (\(requestBody.count) bytes, expected \(data.count))")
        case .json(let canonical, let text) where Self.canonicalJSON(requestBody) != canonical:
            out.append("JSON body \(String(decoding: requestBody.prefix(200), as: UTF8.self)) ≠ \(text)")
        case .invalidJSON(let text):
            out.append("the registered JSON body is not valid JSON: \(text)")
        default: break
        }
        for predicate in predicates where !predicate.test(request) {
            out.append("\(predicate.name) is false")
        }
        return out
    }

    static func canonicalJSON(_ data: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            return nil
        }
        return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    }
}

/// The keys URLs are filed under, one per way of matching the query.
enum URLKeys {
    static func key(_ url: URL, _ query: RequestMatch.Query) -> String {
        // Searched as UTF-8: searching a String by Character walks grapheme clusters, and this
        // runs on every request.
        var text = url.absoluteString
        if let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        guard query != .exact, let mark = text.utf8.firstIndex(of: UInt8(ascii: "?")) else { return text }
        let base = String(text[..<mark])
        switch query {
        case .exact: return text
        case .ignored: return base
        case .anyOrder:
            let items = text[text.index(after: mark)...].split(separator: "&").sorted()
            return base + "?" + items.joined(separator: "&")
        }
    }
}

/// `*` wildcard matching.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return pattern == text }
        var rest = Substring(text)
        guard let first = parts.first, rest.hasPrefix(first) else { return false }
        rest = rest.dropFirst(first.count)
        for (index, part) in parts.enumerated().dropFirst() {
            if index == parts.count - 1 { return part.isEmpty || rest.hasSuffix(part) }
            if part.isEmpty { continue }
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }
}
