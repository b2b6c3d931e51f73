import Foundation
import MockNetwork
import MockNetworkGraphQL

extension HTTPArchive {
    /// What is taken out of an archive before it is written: secrets never reach the file.
    ///
    /// ```swift
    /// HTTPArchive.Redaction(queryParameters: ["api_key"], jsonKeys: ["password", "access_token"])
    /// ```
    ///
    /// A secret that is removed in one place is removed everywhere: the values of redacted query
    /// parameters and JSON keys (4 characters or longer) are replaced in every header value, URL
    /// and body of the archive too.
    public struct Redaction: Sendable, Equatable {
        /// Header fields removed from requests and responses, compared case-insensitively.
        public var headers: [String]
        /// Query parameters removed from request URLs.
        public var queryParameters: [String]
        /// Keys whose values, at any depth of a JSON request or response body, become the string
        /// ``replacement`` (keys compared case-insensitively). The rest of the body is kept byte for
        /// byte, and it stays valid JSON. Bodies that are not JSON are left to ``bodyStrings``. A GraphQL
        /// request's variables are redacted too: in a `POST`'s body, and in the JSON a `GET` sends in its
        /// `variables` and `extensions` query items.
        public var jsonKeys: [String]
        /// Strings replaced by ``replacement`` in request and response bodies, and in the values
        /// of header fields that are kept. Empty strings are skipped.
        public var bodyStrings: [String]
        /// What each of ``bodyStrings`` becomes.
        public var replacement: String

        /// A redaction; by default it removes `Authorization`, `Cookie` and `Set-Cookie`.
        public init(
            headers: [String] = ["Authorization", "Cookie", "Set-Cookie"], queryParameters: [String] = [],
            jsonKeys: [String] = [], bodyStrings: [String] = [], replacement: String = "REDACTED"
        ) {
            self.headers = headers
            self.queryParameters = queryParameters
            self.jsonKeys = jsonKeys
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
        var learned: Set<String> = []
        return redacted(redaction, learning: &learned)
    }

    /// ``redacted(_:)``, also cleaning out the secrets in `learned` (found in entries redacted
    /// before), to which it adds those it finds here: a token a response gave is cleaned from the
    /// requests recorded after it.
    func redacted(_ redaction: Redaction, learning learned: inout Set<String>) -> HTTPArchive {
        // The values of redacted query parameters are secrets wherever else they appear: in a redirect's
        // `Location`, a body, another header. (Values shorter than 4 characters are left alone:
        // replacing every "1" in a file would wreck it and hide nothing.)
        let parameterValues =
            redaction.queryParameters.isEmpty ? [] : Self.values(of: redaction.queryParameters, in: self)
        // JSON bodies lose the values of the keys first; what those held goes wherever else it is.
        let keys = Set(redaction.jsonKeys)
        var jsonValues: Set<String> = []
        var copy = self
        for index in copy.entries.indices where !keys.isEmpty {
            func redactJSON(_ body: Body) -> Body {
                guard
                    let (data, removed) = JSONRedaction.redact(
                        body.data, keys: keys, replacement: redaction.replacement)
                else { return body }
                jsonValues.formUnion(removed)
                return Body(data, mimeType: body.mimeType)
            }
            copy.entries[index].request.body = copy.entries[index].request.body.map(redactJSON)
            // A GraphQL `GET` carries its variables as JSON in the query (`GraphQLRedaction.swift`).
            if let (url, removed) = Self.redactingGraphQLQuery(
                copy.entries[index].request.url, keys: keys, replacement: redaction.replacement)
            {
                copy.entries[index].request.url = url
                jsonValues.formUnion(removed)
            }
            copy.entries[index].response.body = redactJSON(copy.entries[index].response.body)
        }
        learned.formUnion(parameterValues.union(jsonValues).filter { $0.count >= 4 && $0 != redaction.replacement })
        return copy.cleaned(of: learned, redaction)
    }

    /// This archive without the headers and query parameters `redaction` names, with its
    /// ``Redaction/bodyStrings`` replaced wherever they are, and with each of `learned` (values
    /// redaction found) replaced in URLs, header values, the string values of JSON bodies (so the
    /// JSON stays valid) and other bodies.
    func cleaned(
        of learned: some Sequence<String>, _ redaction: Redaction, includingBodyStrings: Bool = true
    ) -> HTTPArchive {
        let headerNames = Set(redaction.headers.map { $0.lowercased() })
        // Longest first, so that a value inside another is not replaced first.
        func ordered(_ values: some Sequence<String>) -> [String] {
            Set(values).filter { !$0.isEmpty }.sorted { $0.count > $1.count || $0.count == $1.count && $0 < $1 }
        }
        let found = ordered(learned)
        let bodyStrings = includingBodyStrings ? ordered(redaction.bodyStrings) : []
        let secrets = ordered(bodyStrings + found)
        let replacement = Data(redaction.replacement.utf8)
        var copy = self
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
            var plain = secrets
            if !found.isEmpty,
                let json = JSONRedaction.replacing(
                    found, with: redaction.replacement, inStringsOf: data, keeping: Set(redaction.jsonKeys))
            {
                // In JSON, found values go only where strings are: a PIN "2024" leaves `"year":2024` alone.
                data = json
                plain = bodyStrings
            }
            for secret in plain { data = Self.replacing(Data(secret.utf8), with: replacement, in: data) }
            return Body(data, mimeType: body.mimeType)
        }
        for index in copy.entries.indices {
            var entry = copy.entries[index]
            entry.request.headers = clean(entry.request.headers)
            entry.request.body = entry.request.body.map(clean)
            if !redaction.queryParameters.isEmpty {
                entry.request.url = Self.removing(redaction.queryParameters, from: entry.request.url)
            }
            for secret in secrets {
                // As it is, and as a URL carries it (encoded more or less thoroughly).
                let forms = [CharacterSet.urlQueryAllowed, .urlPathAllowed, .alphanumerics].compactMap {
                    secret.addingPercentEncoding(withAllowedCharacters: $0)
                }
                for form in Set([secret] + forms) {
                    entry.request.url = entry.request.url.replacingOccurrences(of: form, with: redaction.replacement)
                }
            }
            entry.response.headers = clean(entry.response.headers)
            entry.response.body = clean(entry.response.body)
            copy.entries[index] = entry
        }
        return copy
    }

    /// The values the query parameters named `parameters` have in the archive's URLs and headers.
    static func values(of parameters: [String], in archive: HTTPArchive) -> Set<String> {
        let names = Set(parameters)
        var found: Set<String> = []
        func collect(_ text: String) {
            guard text.contains("?"), let items = URLText.components(text)?.queryItems else { return }
            for item in items where names.contains(item.name) {
                if let value = item.value, !value.isEmpty { found.insert(value) }
            }
        }
        for entry in archive.entries {
            collect(entry.request.url)
            for header in entry.request.headers + entry.response.headers { collect(header.value) }
        }
        return found
    }

    static func removing(_ parameters: [String], from url: String) -> String {
        guard var components = URLText.components(url), components.percentEncodedQuery != nil else { return url }
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
