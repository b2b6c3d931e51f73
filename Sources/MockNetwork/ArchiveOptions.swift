import Foundation

extension HTTPArchive {
    /// Whether requests an archive does not hold go to the real server and are recorded.
    ///
    /// Chosen in code, or by the environment variable `MOCKNETWORK_RECORD`
    /// (`none`, `once` or `rewrite`; `none` when it is not set):
    /// ```
    /// MOCKNETWORK_RECORD=once swift test --filter UserTests
    /// ```
    public enum RecordMode: String, Sendable, CaseIterable {
        /// Never record, only replay: a request the archive does not hold fails the test (the
        /// default; `MOCKNETWORK_RECORD=none`).
        case never = "none"
        /// Record when the archive does not exist yet; replay it once it does.
        case once
        /// Record the archive afresh, replacing what it held.
        case rewrite
        /// Replay what the archive holds and record only the requests it lacks, adding them to it
        /// (VCR's `new_episodes`). The entries it held stay as they were.
        case missing

        /// The name of the environment variable that chooses the mode.
        public static let environmentVariable = "MOCKNETWORK_RECORD"

        /// The mode `MOCKNETWORK_RECORD` names (`none`, `once`, `rewrite` or `missing`, in any case, spaces
        /// around it ignored), ``never`` when it is not set (or empty).
        ///
        /// - Throws: ``MockNetworkError/invalidRecordMode(_:)`` for any other value.
        public static func fromEnvironment(
            _ environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws -> RecordMode {
            // Spaces around the value (a stray one in a CI file) are not part of it.
            guard let text = environment[environmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines),
                !text.isEmpty
            else { return .never }
            guard let mode = RecordMode(rawValue: text.lowercased()) else {
                throw MockNetworkError.invalidRecordMode(text)
            }
            return mode
        }
    }

    /// Which requests an archive's entry answers, in the terms of ``RequestMatch``.
    public struct Matching: Sendable {
        enum Kind: Sendable {
            case methodAndURL
            case methodAndPath
            case methodURLAndBody
            case custom(@Sendable (HTTPArchive.Entry) -> RequestMatch)
        }

        let kind: Kind
        /// Query parameters left out when comparing queries (those the redaction removes).
        var ignoredParameters: [String] = []

        /// The same method and the full URL, query included (the default).
        public static let methodAndURL = Matching(kind: .methodAndURL)
        /// The same method, scheme, host and path, whatever the query.
        public static let methodAndPath = Matching(kind: .methodAndPath)
        /// The same method, full URL and body bytes: for APIs that differ by what is posted.
        public static let methodURLAndBody = Matching(kind: .methodURLAndBody)
        /// Your own rule for each entry, e.g. `{ .url($0.request.url, query: .anyOrder) }`.
        public static func custom(_ match: @escaping @Sendable (HTTPArchive.Entry) -> RequestMatch) -> Matching {
            Matching(kind: .custom(match))
        }

        /// This matching, with the named query parameters left out when queries are compared;
        /// an archive whose recorded URLs lost those parameters to ``Redaction`` still answers.
        public func ignoringQueryParameters(_ names: [String]) -> Matching {
            var copy = self
            copy.ignoredParameters += names
            return copy
        }

        func match(for entry: HTTPArchive.Entry) -> RequestMatch {
            let method = entry.request.method
            let url = entry.request.url
            switch kind {
            case .custom(let make):
                return make(entry)
            case .methodAndPath:
                return .url(url, query: .ignored).method(method)
            case .methodAndURL, .methodURLAndBody:
                var match: RequestMatch
                if ignoredParameters.isEmpty {
                    match = RequestMatch.url(url).method(method)
                } else {
                    let ignored = Set(ignoredParameters)
                    let expected = Self.queryItems(url, ignoring: ignored)
                    let shown = expected.isEmpty ? "no query" : expected.joined(separator: "&")
                    match = RequestMatch.url(url, query: .ignored).method(method).when(
                        "the query (without \(ignoredParameters.joined(separator: ", "))) is \(shown)"
                    ) { request in
                        Self.queryItems(request.url?.absoluteString ?? "", ignoring: ignored) == expected
                    }
                }
                if case .methodURLAndBody = kind, let body = entry.request.body, !body.data.isEmpty {
                    match = match.body(body.data)
                }
                return match
            }
        }

        /// The query's items as sent (`name=value`, percent-encoded), in order, without `ignored`.
        static func queryItems(_ url: String, ignoring ignored: Set<String>) -> [String] {
            guard let query = URLComponents(string: url)?.percentEncodedQuery, !query.isEmpty else { return [] }
            return query.split(separator: "&", omittingEmptySubsequences: false).map(String.init).filter { item in
                let name = item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? item
                return !ignored.contains(name.removingPercentEncoding ?? name)
            }
        }
    }

    /// What is taken out of an archive before it is written: secrets never reach the file.
    ///
    /// ```swift
    /// HTTPArchive.Redaction(queryParameters: ["api_key"], bodyStrings: [token])
    /// ```
    public struct Redaction: Sendable, Equatable {
        /// Header fields removed from requests and responses, compared case-insensitively.
        public var headers: [String]
        /// Query parameters removed from request URLs.
        public var queryParameters: [String]
        /// Strings replaced by ``replacement`` in request and response bodies, and in the values
        /// of header fields that are kept. Empty strings are skipped.
        public var bodyStrings: [String]
        /// What each of ``bodyStrings`` becomes.
        public var replacement: String

        /// A redaction; by default it removes `Authorization`, `Cookie` and `Set-Cookie`.
        public init(
            headers: [String] = ["Authorization", "Cookie", "Set-Cookie"], queryParameters: [String] = [],
            bodyStrings: [String] = [], replacement: String = "REDACTED"
        ) {
            self.headers = headers
            self.queryParameters = queryParameters
            self.bodyStrings = bodyStrings
            self.replacement = replacement
        }

        /// Removes `Authorization`, `Cookie` and `Set-Cookie`, and nothing else.
        public static let standard = Redaction()

        /// Removes nothing.
        public static let nothing = Redaction(headers: [])
    }

    /// This archive with `redaction` applied to every entry.
    public func redacted(_ redaction: Redaction) -> HTTPArchive {
        let headerNames = Set(redaction.headers.map { $0.lowercased() })
        // The values of redacted query parameters are secrets wherever else they appear: in a redirect's
        // `Location`, a body, another header. (Values shorter than 4 characters are left alone:
        // replacing every "1" in a file would wreck it and hide nothing.)
        let parameterValues =
            redaction.queryParameters.isEmpty ? [] : Self.values(of: redaction.queryParameters, in: self)
        let secrets = (redaction.bodyStrings + parameterValues.filter { $0.count >= 4 }).filter { !$0.isEmpty }
        let replacement = Data(redaction.replacement.utf8)
        func clean(_ headers: [Header]) -> [Header] {
            headers.compactMap { header in
                if headerNames.contains(header.name.lowercased()) { return nil }
                var value = header.value
                if !redaction.queryParameters.isEmpty, value.contains("?") {
                    value = Self.removing(redaction.queryParameters, from: value)
                }
                for secret in secrets { value = value.replacingOccurrences(of: secret, with: redaction.replacement) }
                return Header(header.name, value)
            }
        }
        func clean(_ body: Body) -> Body {
            var data = body.data
            for secret in secrets { data = Self.replacing(Data(secret.utf8), with: replacement, in: data) }
            return Body(data, mimeType: body.mimeType)
        }
        var copy = self
        for index in copy.entries.indices {
            var entry = copy.entries[index]
            entry.request.headers = clean(entry.request.headers)
            entry.request.body = entry.request.body.map(clean)
            if !redaction.queryParameters.isEmpty {
                entry.request.url = Self.removing(redaction.queryParameters, from: entry.request.url)
            }
            entry.response.headers = clean(entry.response.headers)
            entry.response.body = clean(entry.response.body)
            copy.entries[index] = entry
        }
        return copy
    }

    /// The values the query parameters named `parameters` have in the archive's URLs and headers.
    static func values(of parameters: [String], in archive: HTTPArchive) -> [String] {
        let names = Set(parameters)
        var found: Set<String> = []
        func collect(_ text: String) {
            guard text.contains("?"), let items = URLComponents(string: text)?.queryItems else { return }
            for item in items where names.contains(item.name) {
                if let value = item.value, !value.isEmpty { found.insert(value) }
            }
        }
        for entry in archive.entries {
            collect(entry.request.url)
            for header in entry.request.headers + entry.response.headers { collect(header.value) }
        }
        // Longest first, so that a value inside another is not replaced first.
        return found.sorted { $0.count > $1.count }
    }

    static func removing(_ parameters: [String], from url: String) -> String {
        guard var components = URLComponents(string: url), components.percentEncodedQuery != nil else { return url }
        let kept = Matching.queryItems(url, ignoring: Set(parameters))
        components.percentEncodedQuery = kept.isEmpty ? nil : kept.joined(separator: "&")
        return components.string ?? url
    }

    static func replacing(_ secret: Data, with replacement: Data, in data: Data) -> Data {
        guard !secret.isEmpty, data.range(of: secret) != nil else { return data }
        var out = Data()
        var rest = data[...]
        while let found = rest.range(of: secret) {
            out += rest[rest.startIndex..<found.lowerBound]
            out += replacement
            rest = rest[found.upperBound...]
        }
        out += rest
        return out
    }
}
