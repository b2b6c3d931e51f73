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

    /// Whether matching calls user code (`.when`).
    var hasPredicates: Bool { !predicates.isEmpty }

    /// A key that matches answering the same requests share: the URL as the query mode files it
    /// (`/items` for `/items?page=2` when the query is ignored), then the rules.
    var groupingKey: String {
        guard case .url(let url, let query) = target, query != .exact else { return description }
        var copy = self
        copy.target = .url(URLKeys.key(url, query), query)
        return copy.description
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
                if let registered = URL(string: registered) {
                    out += URLDifference.between(requested: url, registered: registered, query: query)
                }
                if out.isEmpty { out.append("URL \(url.absoluteString) ≠ \(registered)") }
            }
        case .pattern(let host, let path):
            let requestHost = (url.host ?? "").lowercased()
            // Only for failure text: lookups use the pattern compiled at registration.
            let subject = PatternSubject(url)
            if !CompiledGlob(host).matches(subject.host) {
                out.append("host \"\(requestHost)\" does not match \"\(host)\"")
            }
            if let path, !CompiledGlob(path).matches(subject.path) {
                out.append("path \"\(url.path)\" does not match \"\(path)\"")
            }
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

    /// Whether `request` passes the rules besides the URL, building no failure text.
    func rulesMatch(_ request: URLRequest, body requestBody: Data) -> Bool {
        if let method, method != (request.httpMethod ?? "GET").uppercased() { return false }
        for header in headers where request.value(forHTTPHeaderField: header.name) != header.value { return false }
        switch body {
        case .bytes(let data) where data != requestBody: return false
        case .json(let canonical, _) where Self.canonicalJSON(requestBody) != canonical: return false
        case .invalidJSON: return false
        default: break
        }
        return predicates.allSatisfy { $0.test(request) }
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
        key(url.absoluteString, query)
    }

    /// The key of a URL's absolute string. Searched as UTF-8 bytes: searching a String by
    /// Character walks grapheme clusters, and this runs on every request.
    static func key(_ absolute: String, _ query: RequestMatch.Query) -> String {
        var text = absolute
        text.makeContiguousUTF8()
        let (hash, mark) =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                (bytes.firstIndex(of: UInt8(ascii: "#")), bytes.firstIndex(of: UInt8(ascii: "?")))
            } ?? (nil, nil)
        if let hash { text = String(decoding: text.utf8.prefix(hash), as: UTF8.self) }
        guard query != .exact, let mark, mark < (hash ?? Int.max) else { return text }
        let base = String(decoding: text.utf8.prefix(mark), as: UTF8.self)
        switch query {
        case .exact: return text
        case .ignored: return base
        case .anyOrder:
            let items = text.utf8.dropFirst(mark + 1).split(separator: UInt8(ascii: "&")).map {
                String(decoding: $0, as: UTF8.self)
            }.sorted()
            return base + "?" + items.joined(separator: "&")
        }
    }

    /// What `URL(string: text)?.absoluteString` is, or `nil` when `text` is no absolute URL.
    ///
    /// Registering thousands of handlers parses thousands of URLs, and parsing is most of the cost
    /// of a registration; a string in the plain form most URLs take (`scheme://host.name/path?query`,
    /// no percent signs, no user or port, nothing to encode) is already its own absolute string,
    /// so that form skips the parse.
    static func absoluteString(_ text: String) -> String? {
        if isPlainAbsolute(text) { return text }
        guard let url = URL(string: text), url.scheme != nil else { return nil }
        return url.absoluteString
    }

    static func isPlainAbsolute(_ text: String) -> Bool {
        var text = text
        text.makeContiguousUTF8()
        return text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            // scheme
            var index = 0
            guard let first = bytes.first, isLetter(first) else { return false }
            while index < bytes.count,
                isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == 0x2B
                    || bytes[index] == 0x2D || bytes[index] == 0x2E
            {
                index += 1
            }
            // "://"
            guard index + 3 <= bytes.count, bytes[index] == 0x3A, bytes[index + 1] == 0x2F, bytes[index + 2] == 0x2F
            else { return false }
            index += 3
            // host: letters, digits, dots and hyphens only, starting with a letter or digit
            let hostStart = index
            while index < bytes.count,
                isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == 0x2E
                    || bytes[index] == 0x2D
            {
                index += 1
            }
            guard index > hostStart, isLetter(bytes[hostStart]) || isDigit(bytes[hostStart]) else { return false }
            guard index == bytes.count || bytes[index] == 0x2F else { return false }  // then a path, or nothing
            // path, query and at most one fragment: characters that are never encoded
            var fragments = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x23 {
                    fragments += 1
                    if fragments > 1 { return false }
                } else if !isLetter(byte) && !isDigit(byte) && !isPlainPunctuation(byte) {
                    return false
                }
                index += 1
            }
            return true
        } ?? false
    }

    /// `- . _ ~ ! $ & ' ( ) * + , ; = : @ / ?`: unreserved characters, sub-delimiters and the
    /// separators a path and query may hold.
    private static func isPlainPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24, 0x26...0x2F, 0x3A, 0x3B, 0x3D, 0x3F, 0x40, 0x5F, 0x7E: return true
        default: return false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }
}
