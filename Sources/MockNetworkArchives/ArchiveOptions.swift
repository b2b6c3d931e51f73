import Foundation
import MockNetwork
import MockNetworkGraphQL

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
        /// - Throws: ``ArchiveError/invalidRecordMode(_:)`` for any other value.
        public static func fromEnvironment(
            _ environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws -> RecordMode {
            // Spaces around the value (a stray one in a CI file) are not part of it.
            guard let text = environment[environmentVariable]?.trimmingCharacters(in: .whitespacesAndNewlines),
                !text.isEmpty
            else { return .never }
            guard let mode = RecordMode(rawValue: text.lowercased()) else {
                throw ArchiveError.invalidRecordMode(text)
            }
            return mode
        }
    }

    /// Which requests an archive's entry answers, in the terms of the core's `RequestMatch`.
    ///
    /// With ``methodAndURL`` and ``methodAndPath``, an entry whose request carries a named GraphQL
    /// operation answers that operation, not every request to its URL (an app sends them all to one
    /// endpoint): the same method and endpoint, whatever the query, and an operation of the same name
    /// and type with exactly the recorded variables, compared as JSON. Repeated operations answer in
    /// the order recorded. A variable that ``Redaction`` replaced fits any value: the replacement of
    /// the redaction `useArchive` is given, or `REDACTED` for
    /// `MockRegistry.replay(_:matching:latency:fileID:filePath:line:column:)`. A recorded batch
    /// whose answer is an array of results answers each of its operations with its own result, and a
    /// batch is answered operation by operation.
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
        /// What redaction wrote in place of a secret: in a GraphQL entry's variables it fits any value.
        var redactedValue = HTTPArchive.Redaction.standard.replacement

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
            guard let query = URLText.components(url)?.percentEncodedQuery, !query.isEmpty else { return [] }
            return query.split(separator: "&", omittingEmptySubsequences: false).map(String.init).filter { item in
                let name = item.split(separator: "=", maxSplits: 1).first.map(String.init) ?? item
                return !ignored.contains(name.removingPercentEncoding ?? name)
            }
        }
    }

    /// How long a replayed entry takes to answer.
    ///
    /// ```swift
    /// try mocks.useArchive(at: file, latency: .recorded(scale: 0.1))  // a tenth of the recorded time
    /// ```
    public struct Latency: Sendable, Equatable {
        /// What each entry's recorded `time` is multiplied by; 0 answers at once.
        let scale: Double

        /// Every entry answers at once (the default).
        public static let none = Latency(scale: 0)

        /// Each entry answers after the time it took when it was recorded (its `time`), multiplied by
        /// `scale`: `0.1` keeps a loading state visible for a tenth of the real wait. A negative or
        /// non-finite scale counts as 0. A wait past the request's timeout ends it with
        /// `URLError(.timedOut)`, as the server would have.
        public static func recorded(scale: Double = 1) -> Latency {
            Latency(scale: scale.isFinite && scale > 0 ? scale : 0)
        }

        /// How long the entry waits, in seconds.
        func delay(for entry: HTTPArchive.Entry) -> TimeInterval {
            guard scale > 0, entry.time.isFinite, entry.time > 0 else { return 0 }
            return entry.time / 1000 * scale
        }
    }
}
