import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a ``RequestMatch`` decides: its specificity, and whether a request meets each of its rules.
extension RequestMatch {
    /// How specific this match is: the kind of target first (a template by its literal segments,
    /// so `/users/me` outranks `/users/{id}`), then the number of rules.
    var specificity: Int {
        let base: Int
        switch target {
        case _ where content != nil:
            // Above any match that reads no content: a GraphQL app sends every operation to one URL.
            base = 500_000 + (Self.isEndpoint(target) ? 10_000 : 0) + (content?.specificity ?? 0)
        case .url(_, .exact): base = 400_000
        case .url(_, .anyOrder): base = 300_000
        case .url(_, .ignored): base = 200_000
        case .template(let host, let origin, let path):
            base = 150_000 + (origin == nil && host.contains("*") ? 0 : 10_000) + min(path.literalCount, 99) * 100
        case .pattern(_, let path): base = 100_000 + (path == nil ? 0 : 10_000)
        case .invalid, .invalidTemplate: base = 0
        }
        return base + (method == nil ? 0 : 1) + headers.count + (body == nil ? 0 : 1) + predicates.count
            + queryItems.count + parts.count
    }

    /// Whether a content match's target is one endpoint (`at(_:)`), not any URL.
    private static func isEndpoint(_ target: Target) -> Bool {
        if case .url = target { return true }
        return false
    }

    /// Whether matching calls user code (`.when`).
    var hasPredicates: Bool { !predicates.isEmpty }

    /// Whether a lookup inside `startLoading` leaves this route to a thread of its own: a `.when`
    /// predicate is user code, and a rule that reads a body larger than ``BodyReading/inlineLimit``
    /// would hold Foundation's queue, which every session in the process shares, for as long as the
    /// body is large.
    func leavesFoundationsQueue(bodySize: Int) -> Bool {
        !predicates.isEmpty || (bodySize > BodyReading.inlineLimit && (body != nil || content != nil || !parts.isEmpty))
    }

    /// A key that matches answering the same requests share: the URL as the query mode files it
    /// (`/items` for `/items?page=2` when the query is ignored), then the rules.
    package var groupingKey: String {
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
    func mismatches(
        _ request: URLRequest, url: URL, body requestBody: Data, reading: BodyReading? = nil
    ) -> [String] {
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
        case .template(let host, let origin, let path):
            if let origin {
                if let difference = Self.originDifference(url, origin) { out.append(difference) }
            } else if !CompiledGlob(host).matches(PatternSubject(url).host) {
                out.append("host \"\((url.host ?? "").lowercased())\" does not match \"\(host)\"")
            }
            if let difference = path.difference(PathTemplate.segments(of: url), shown: url.path) {
                out.append(difference)
            }
        case .invalid(let text):
            out.append("the registered URL \"\(text)\" is not an absolute URL")
        case .invalidTemplate(let text, _):
            out.append("the registered template \"\(text)\" is not a valid template")
        }
        return out + ruleMismatches(request, body: requestBody, reading: reading)
    }

    /// Why `request` fails the rules besides the URL: method, headers, body, predicates.
    func ruleMismatches(_ request: URLRequest, body requestBody: Data, reading: BodyReading? = nil) -> [String] {
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
        case .json(let expected, let text) where (reading ?? BodyReading(request, body: requestBody)).json != expected:
            out.append("JSON body \(String(decoding: requestBody.prefix(200), as: UTF8.self)) ≠ \(text)")
        case .invalidJSON(let text):
            out.append("the registered JSON body is not valid JSON: \(text)")
        default: break
        }
        if !queryItems.isEmpty {
            let have = Self.queryItems(of: request.url)
            for item in queryItems where !have.contains(where: { $0.name == item.name && $0.value == item.value }) {
                if let other = have.first(where: { $0.name == item.name }) {
                    out.append("query item \(item.name) \"\(other.value)\" ≠ \"\(item.value)\"")
                } else {
                    out.append("query item \(item.name) missing")
                }
            }
        }
        if content != nil || !parts.isEmpty {
            out += bodyRuleMismatches(reading ?? BodyReading(request, body: requestBody))
        }
        for predicate in predicates where !predicate.test(request) {
            out.append("\(predicate.name) is false")
        }
        return out
    }

    /// The scheme, host or port of `url` that differs from a template's `origin`, in words.
    private static func originDifference(_ url: URL, _ origin: String) -> String? {
        let scheme = (url.scheme ?? "").lowercased()
        let host = (url.host ?? "").lowercased()
        let have = scheme + "://" + host + (url.port.map { ":\($0)" } ?? "")
        return have == origin ? nil : "origin \(have) ≠ \(origin)"
    }

    /// Whether `url` has the template's scheme, host and port.
    static func originMatches(_ url: URL, _ origin: String) -> Bool { originDifference(url, origin) == nil }

    /// The query items of `url`, percent-decoded (`+` as a space).
    static func queryItems(of url: URL?) -> [(name: String, value: String)] {
        guard let query = url?.query(percentEncoded: true), !query.isEmpty else { return [] }
        return query.split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            return (decode(pair[0]), pair.count > 1 ? decode(pair[1]) : "")
        }
    }

    /// Whether `request` passes the rules besides the URL, building no failure text.
    func rulesMatch(_ request: URLRequest, body requestBody: Data, reading: BodyReading? = nil) -> Bool {
        if let method, method != (request.httpMethod ?? "GET").uppercased() { return false }
        for header in headers where request.value(forHTTPHeaderField: header.name) != header.value { return false }
        switch body {
        case .bytes(let data) where data != requestBody: return false
        case .json(let expected, _) where (reading ?? BodyReading(request, body: requestBody)).json != expected:
            return false
        case .invalidJSON: return false
        default: break
        }
        if !queryItems.isEmpty {
            let have = Self.queryItems(of: request.url)
            for item in queryItems where !have.contains(where: { $0.name == item.name && $0.value == item.value }) {
                return false
            }
        }
        if content != nil || !parts.isEmpty,
            !bodyRulesHold(reading ?? BodyReading(request, body: requestBody))
        {
            return false
        }
        return predicates.allSatisfy { $0.test(request) }
    }

}

extension RequestMatch {
    /// Why no request can ever match this, for checks after the fact; `nil` when one can. (What
    /// registration reports for the same match says so in its own words: nothing was registered.)
    var problem: String? {
        switch target {
        case .invalid(let text):
            return "\"\(text)\" is not an absolute URL, so no request can match it. Give the full URL with its "
                + "scheme, e.g. \"https://api.example.com/path\"."
        case .invalidTemplate(_, let reason):
            return reason
        default:
            break
        }
        if case .invalidJSON(let text) = body {
            return ".jsonBody(\"\(MockRegistry.shortened(text))\") is not valid JSON, so no request can match it. "
                + "Write the body as JSON, with double-quoted keys and strings, e.g. .jsonBody(#\"{\"user\": \"ada\"}\"#)."
        }
        return nil
    }

    /// The failure for a check after the fact (`expect`, `requests(matching:)`, `nextRequest`) given
    /// this match when no request can ever match it.
    func refusal(by check: String) -> String? {
        problem.map { "MockNetwork: \(check) checks nothing: \($0)" }
    }
}
