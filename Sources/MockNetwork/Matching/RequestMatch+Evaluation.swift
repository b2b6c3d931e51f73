import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a ``RequestMatch`` decides: its specificity, and whether a request meets each of its rules.
extension RequestMatch {
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
