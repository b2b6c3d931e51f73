import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session's URL cache, kept as a real server's answers would be kept in it: MockNetwork's own
/// rule, the same on every platform. Foundation on Linux never stores what a custom protocol answers
/// and never answers from the cache for one; on Apple platforms whether it does for a custom protocol
/// is not documented. So MockNetwork reports every answer as `.notAllowed` and does the caching
/// itself, only for sessions whose configuration has a `urlCache`:
///
/// - a GET answer is stored when its status may be cached (200, 203, 204, 300, 301, 308, 404, 405,
///   410, 414, 501), neither side said `no-store`, `Vary` is not `*`, and it has a lifetime
///   (`max-age`, `Expires`) or a validator (`ETag`, `Last-Modified`);
/// - a fresh stored answer (its age below `max-age`, or `Expires`, or a tenth of the time since
///   `Last-Modified`) is given again without asking the handlers; a stale one with a validator is
///   asked for with `If-None-Match` / `If-Modified-Since`, and a `304` answer gives the stored body
///   with the `304`'s header fields; `no-cache` (either side) always asks;
/// - the request's `cachePolicy` (or, where it is `.useProtocolCachePolicy`, the configuration's
///   `requestCachePolicy`) chooses as on Apple platforms; a request with its own `If-None-Match` or
///   `If-Modified-Since` is the caller's to validate and goes to the handlers as it is;
/// - a POST, PUT, PATCH or DELETE answered with 2xx or 3xx removes what was stored for its URL;
/// - each hop of a redirect chain is looked up and its answer stored as a request of its own (as
///   Apple's loading does with a protocol per hop); a redirect that is followed is not stored.
struct HTTPCaching: Sendable {
    /// What to do with a request before the handlers see it.
    enum Lookup {
        /// Load it from the handlers: `settled(_:request:last:now:)` then keeps (or merges) the answer.
        case load(HTTPCaching)
        /// Answer it from the cache: the handlers never see it, as a server would not.
        case stored(HTTPURLResponse, Data)
        /// `.returnCacheDataDontLoad` with nothing stored.
        case unavailable(URLError)
    }

    /// The cache, `@unchecked Sendable`: `URLCache` is thread-safe on both platforms, though not
    /// marked `Sendable` on Linux.
    private struct Cache: @unchecked Sendable {
        let cache: URLCache
    }

    private let cache: Cache
    /// The request as the client made it (the key for the cache), and its method.
    private let url: URL
    private let method: String
    /// The stored answer this request asks the handlers to confirm, when it carries validators.
    private let revalidating: Entry?
    /// False when the request said `no-store`.
    private let keeps: Bool

    /// A stored answer and when it was stored.
    struct Entry {
        let response: HTTPURLResponse
        let data: Data
        let storedAt: Date?
    }

    static let storedAtKey = "MockNetwork.storedAt"
    static let varyKey = "MockNetwork.vary"
    static let cacheableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// What the cache of `configuration` says of `request`, with the validators added to the
    /// request when a stored answer must be confirmed; `nil` when the configuration has no cache.
    static func lookUp(
        _ request: inout URLRequest, configuration: URLSessionConfiguration?, now: Date = Date()
    ) -> Lookup? {
        guard let configuration, let urlCache = configuration.urlCache, let url = request.url else { return nil }
        let method = request.httpMethod ?? "GET"
        let requestDirectives = CacheDirectives(request.value(forHTTPHeaderField: "Cache-Control"))
        func load(_ entry: Entry? = nil) -> Lookup {
            .load(
                HTTPCaching(
                    cache: Cache(cache: urlCache), url: url, method: method, revalidating: entry,
                    keeps: !requestDirectives.has("no-store")))
        }
        guard method == "GET" else { return load() }
        let policy =
            request.cachePolicy == .useProtocolCachePolicy ? configuration.requestCachePolicy : request.cachePolicy
        let ownValidation =
            request.value(forHTTPHeaderField: "If-None-Match") != nil
            || request.value(forHTTPHeaderField: "If-Modified-Since") != nil
        if requestDirectives.has("no-store") || ownValidation { return load() }
        if policy == .reloadIgnoringLocalCacheData || policy == .reloadIgnoringLocalAndRemoteCacheData {
            return load()
        }
        guard let entry = stored(for: request, in: urlCache) else {
            guard policy == .returnCacheDataDontLoad else { return load() }
            return .unavailable(
                URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: nothing is stored in the session's URL cache for GET "
                            + "\(url.absoluteString), and the request's cache policy is .returnCacheDataDontLoad."
                    ]))
        }
        if policy == .returnCacheDataElseLoad || policy == .returnCacheDataDontLoad {
            return .stored(entry.response, entry.data)
        }
        let responseDirectives = CacheDirectives(entry.response.value(forHTTPHeaderField: "Cache-Control"))
        let asksServer =
            policy == .reloadRevalidatingCacheData || requestDirectives.has("no-cache")
            || requestDirectives.seconds("max-age") == 0
            || request.value(forHTTPHeaderField: "Pragma")?.lowercased() == "no-cache"
            || responseDirectives.has("no-cache")
        if !asksServer, let age = age(of: entry, now: now), age < lifetime(of: entry) {
            return .stored(entry.response, entry.data)
        }
        // Stale, or to be confirmed: with a validator the handler is asked whether it still holds.
        let etag = entry.response.value(forHTTPHeaderField: "ETag")
        let lastModified = entry.response.value(forHTTPHeaderField: "Last-Modified")
        guard etag != nil || lastModified != nil else { return load() }
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified { request.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since") }
        return load(entry)
    }

    /// `answer` as the cache leaves it: a `304` to a revalidation becomes the stored answer (with the
    /// `304`'s fields), and an answer that may be stored is stored; an unsafe method's success removes
    /// what was stored for its URL. `request` is the one the handlers saw.
    ///
    /// Called for each step of a redirect chain, with the caching of that step's URL (looked up
    /// again for every hop): an unsafe method's success (a redirect included) removes what was
    /// stored; only the step that ends the chain is merged or stored.
    func settled(
        _ answer: MockRegistry.Answer, request: URLRequest, last: Bool, now: Date = Date()
    ) -> MockRegistry.Answer {
        guard case .success(let (response, body)) = answer.result else { return answer }
        guard method == "GET" else {
            if ["POST", "PUT", "PATCH", "DELETE"].contains(method), (200..<400).contains(response.statusCode) {
                Self.storing.withLock { count in
                    cache.cache.removeCachedResponse(for: Self.key(url))
                    count &+= 1
                }
            }
            return answer
        }
        guard last, request.url?.absoluteString == url.absoluteString else { return answer }
        if response.statusCode == 304, let entry = revalidating {
            var fields = Self.fields(of: entry.response)
            let replaced: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
            for (name, value) in Self.fields(of: response) where !replaced.contains(name.lowercased()) {
                // One spelling of each name: the stored answer's is replaced by the 304's.
                fields = fields.filter { $0.key.caseInsensitiveCompare(name) != .orderedSame }
                fields[name] = value
            }
            // A 304 without a Date is as of now (RFC 9110, 6.6.1), or the old Date would keep it stale.
            if response.value(forHTTPHeaderField: "Date") == nil {
                fields = fields.filter { $0.key.caseInsensitiveCompare("Date") != .orderedSame }
                fields["Date"] = HTTPDate.string(now)
            }
            guard
                let merged = HTTPURLResponse(
                    url: entry.response.url ?? url, statusCode: entry.response.statusCode, httpVersion: "HTTP/1.1",
                    headerFields: fields)
            else { return answer }
            store(merged, entry.data, request: request, now: now)
            var confirmed = answer
            confirmed.result = .success((merged, entry.data))
            confirmed.pacing = nil
            return confirmed
        }
        if keeps, answer.pacing == nil, Self.mayStore(response) { store(response, body, request: request, now: now) }
        return answer
    }

    private func store(_ response: HTTPURLResponse, _ data: Data, request: URLRequest, now: Date) {
        var vary: [String: String] = [:]
        for name in Self.varyNames(of: response) { vary[name] = request.value(forHTTPHeaderField: name) ?? "" }
        let stored = CachedURLResponse(
            response: response, data: data,
            userInfo: [Self.storedAtKey: now.timeIntervalSince1970, Self.varyKey: vary], storagePolicy: .allowed)
        // Removed first, and both under one lock: Foundation on Linux lists a key stored twice twice,
        // and its next eviction then crashes on the copy that is already gone.
        Self.storing.withLock { count in
            cache.cache.removeCachedResponse(for: Self.key(url))
            cache.cache.storeCachedResponse(stored, for: Self.key(url))
            count &+= 1
        }
    }

    /// Held while an answer is stored or removed, in any session's cache. (It counts the stores so
    /// that its value has a size: ThreadSanitizer takes every access to an empty value in a lock
    /// box for a race on the box itself, which failed users' runs.)
    private static let storing = Locked(0)

    /// The request a URL's answer is filed under. Foundation on Linux files by host, port and path
    /// only, so there the query (and scheme) go into the path, and two queries of one path are two
    /// answers on both platforms.
    static func key(_ url: URL) -> URLRequest {
        #if canImport(FoundationNetworking)
            if var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                parts.percentEncodedPath += "/%3F" + (parts.scheme ?? "") + "%3F" + (parts.percentEncodedQuery ?? "")
                parts.percentEncodedQuery = nil
                parts.fragment = nil
                if let filed = parts.url { return URLRequest(url: filed) }
            }
        #endif
        return URLRequest(url: url)
    }

    /// What `cache` holds for `request`'s URL, when it is for that very URL (Foundation on Linux keys
    /// its cache by host, port and path only) and the fields its `Vary` names have the same values.
    private static func stored(for request: URLRequest, in cache: URLCache) -> Entry? {
        guard let url = request.url, let cached = cache.cachedResponse(for: key(url)),
            let response = cached.response as? HTTPURLResponse,
            response.url?.absoluteString == url.absoluteString
        else { return nil }
        let vary = cached.userInfo?[varyKey] as? [String: String] ?? [:]
        let names = varyNames(of: response)
        if !names.isEmpty {
            for name in names where (request.value(forHTTPHeaderField: name) ?? "") != vary[name] { return nil }
        }
        let storedAt = (cached.userInfo?[storedAtKey] as? Double).map { Date(timeIntervalSince1970: $0) }
        return Entry(response: response, data: cached.data, storedAt: storedAt)
    }

    /// Whether a GET's `response` may be stored.
    static func mayStore(_ response: HTTPURLResponse) -> Bool {
        guard cacheableStatuses.contains(response.statusCode) else { return false }
        let directives = CacheDirectives(response.value(forHTTPHeaderField: "Cache-Control"))
        if directives.has("no-store") || varyNames(of: response).contains("*") { return false }
        return directives.seconds("max-age") != nil || response.value(forHTTPHeaderField: "Expires") != nil
            || response.value(forHTTPHeaderField: "ETag") != nil
            || response.value(forHTTPHeaderField: "Last-Modified") != nil
    }

    /// How long a stored answer stays fresh, in seconds.
    static func lifetime(of entry: Entry) -> TimeInterval {
        let response = entry.response
        if let maxAge = CacheDirectives(response.value(forHTTPHeaderField: "Cache-Control")).seconds("max-age") {
            return maxAge
        }
        let date = HTTPDate.parse(response.value(forHTTPHeaderField: "Date")) ?? entry.storedAt
        if let expiresField = response.value(forHTTPHeaderField: "Expires") {
            // An Expires that is no date (such as "0") means already expired.
            guard let expires = HTTPDate.parse(expiresField), let date else { return 0 }
            return expires.timeIntervalSince(date)
        }
        if let lastModified = HTTPDate.parse(response.value(forHTTPHeaderField: "Last-Modified")), let date {
            return max(0, date.timeIntervalSince(lastModified) / 10)
        }
        return 0
    }

    /// A stored answer's age now (RFC 9111, 4.2.3), or `nil` when it cannot be told.
    static func age(of entry: Entry, now: Date) -> TimeInterval? {
        let date = HTTPDate.parse(entry.response.value(forHTTPHeaderField: "Date"))
        guard let storedAt = entry.storedAt ?? date else { return nil }
        let apparent = max(0, storedAt.timeIntervalSince(date ?? storedAt))
        let ageField = entry.response.value(forHTTPHeaderField: "Age").flatMap { TimeInterval($0) } ?? 0
        return max(apparent, ageField) + now.timeIntervalSince(storedAt)
    }

    private static func varyNames(of response: HTTPURLResponse) -> [String] {
        guard let vary = response.value(forHTTPHeaderField: "Vary") else { return [] }
        return vary.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func fields(of response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return fields
    }
}
