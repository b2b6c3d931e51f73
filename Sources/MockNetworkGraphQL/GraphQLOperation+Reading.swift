import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the operations of a request as GraphQL over HTTP sends them; see ``GraphQLOperation``.
struct GraphQLRequestReader {
    let request: URLRequest
    let body: Data

    /// Why a request carries no operation, in the pieces the unmatched report words on its own;
    /// ``GraphQLOperation/operations(in:body:)`` throws its ``error``.
    struct Problem: Error {
        /// The error, as a user gets it.
        let error: GraphQLFormatError
        /// Why, as a phrase about the request: `its body is not JSON`.
        let reason: String
        /// What to change in the client: `body`, `method`, `query items`, `document`, `request`.
        let part: String
        /// How, as a sentence: `Send at least one operation.`
        let fix: String
    }

    /// `POST https://api.example.com/graphql`, for messages.
    private var label: String {
        "\(RecordedRequest.method(of: request)) \(MockRegistry.shortened(request.url?.absoluteString ?? ""))"
    }

    func operations() throws -> [GraphQLOperation] {
        #if DEBUG
            Self.countRead(of: body)
        #endif
        let method = RecordedRequest.method(of: request)
        switch method.uppercased() {
        case "GET": return [try operation(fields: try queryFields(), batchIndex: nil)]
        case "POST": break
        default:
            throw notGraphQL(
                "GraphQL over HTTP sends GET or POST", fix: "Send the operation with one of them.", part: "method",
                shown: "it is a \(method), and GraphQL over HTTP sends GET or POST")
        }
        switch try bodyJSON() {
        case .object(let fields):
            return [try operation(fields: fields, batchIndex: nil)]
        case .array(let batch) where !batch.isEmpty:
            return try batch.enumerated().map { index, element in
                guard case .object(let fields) = element else {
                    throw notGraphQL(
                        "operation \(index + 1) of its batch is \(element.kind), not an object",
                        fix: "Send each operation of a batch as {\"query\": …}.")
                }
                return try operation(fields: fields, batchIndex: index)
            }
        case .array:
            throw notGraphQL("its body is an empty batch", fix: "Send at least one operation.")
        case let other:
            throw notGraphQL("its body is \(other.kind), not an object", fix: Self.shapeFix)
        }
    }

    static let shapeFix = #"Send {"query": "…", "variables": {…}}, or an array of them for a batch."#

    /// Whether a `Content-Type` could be `multipart/…`: a look at its first letters, before
    /// ``HeaderValue`` reads it whole (about 20,000 instructions, on every GraphQL request otherwise).
    private static func mayBeMultipart(_ contentType: String) -> Bool {
        starts(contentType, with: "multipart")
    }

    /// Whether `contentType` starts with `prefix` (lowercase letters and `/`), past white space and
    /// whatever the case of its letters.
    private static func starts(_ contentType: String, with prefix: String) -> Bool {
        let letters = contentType.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return letters.lazy.map { $0 | 0x20 }.starts(with: prefix.utf8)
    }

    /// The JSON body, or for an upload (`multipart/form-data`) its `operations` field.
    private func bodyJSON() throws -> JSONValue {
        var json = body
        if let contentType = request.value(forHTTPHeaderField: "Content-Type"), Self.mayBeMultipart(contentType),
            HeaderValue(contentType).lowercased == "multipart/form-data"
        {
            let parts = try MultipartPart.parts(in: body, contentType: contentType)
            guard let operations = parts.first(where: { $0.name == "operations" }) else {
                throw notGraphQL(
                    "its multipart/form-data body has no field \"operations\"",
                    fix: "Send the operation there, as the GraphQL multipart request spec says.")
            }
            json = operations.body
        }
        do {
            return try JSONValue(json: json)
        } catch {
            // The real reason, for a request that meant GraphQL (only here, once the body failed).
            if json == body, let contentType = request.value(forHTTPHeaderField: "Content-Type"),
                Self.starts(contentType, with: "application/graphql"),
                HeaderValue(contentType).lowercased == "application/graphql"
            {
                throw notGraphQL(
                    "its body is a GraphQL document sent as application/graphql, which GraphQL over HTTP does "
                        + "not define",
                    fix: #"Send {"query": "…"} as application/json."#)
            }
            let shape = Self.jsonShape(json)
            if shape.endsInside {
                throw notGraphQL(
                    "its body is cut off: it ends after \(json.count) bytes, inside its JSON",
                    fix: "Send the whole of it.")
            }
            if shape.deepest > Self.deepestJSON {
                throw notGraphQL(
                    "its JSON nests \(shape.deepest) levels deep, more than the \(Self.deepestJSON) a JSON reader "
                        + "takes (Foundation's JSONDecoder included)",
                    fix: "Nest its variables less deeply.")
            }
            throw notGraphQL("its body is not JSON", fix: Self.shapeFix)
        }
    }

    /// The deepest nesting MockNetwork's JSON reader, and Foundation's `JSONDecoder`, read.
    static let deepestJSON = 512

    /// Whether `data` starts as a JSON object or array and ends before it closes (inside a string, or
    /// with brackets open): a body cut off; and how deep its brackets nest.
    private static func jsonShape(_ data: Data) -> (endsInside: Bool, deepest: Int) {
        var deepest = 0
        var depth = 0
        var inString = false
        var escaped = false
        var started = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth < 0 { return (false, deepest) }
            case UInt8(ascii: "\""): inString = true
            default: if !started { return (false, deepest) }
            }
            started = true
        }
        return (started && (depth > 0 || inString), deepest)
    }

    /// The fields a `GET` sends as query items: `query` and `operationName` as they are, `variables`
    /// and `extensions` JSON-encoded; an empty item counts as none.
    private func queryFields() throws -> [String: JSONValue] {
        let query = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }?.percentEncodedQuery
        var items: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let pieces = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            let name = decode(pieces[0])
            if items[name] == nil, pieces.count > 1, !pieces[1].isEmpty { items[name] = decode(pieces[1]) }
        }
        var fields: [String: JSONValue] = [:]
        fields["query"] = items["query"].map(JSONValue.string)
        fields["operationName"] = items["operationName"].map(JSONValue.string)
        for name in ["variables", "extensions"] {
            guard let text = items[name] else { continue }
            guard let value = try? JSONValue(json: text) else {
                throw notGraphQL(
                    "its query item \(name) is not JSON", fix: #"Send it JSON-encoded: \#(name)={"id":7}."#,
                    part: "query items")
            }
            fields[name] = value
        }
        return fields
    }

    /// A request that is no GraphQL request because of `reason`; `part` is what the client changes
    /// (its body, or a `GET`'s query items, unless given), `shown` the reason as a report says it.
    func notGraphQL(_ reason: String, fix: String, part: String? = nil, shown: String? = nil) -> Problem {
        let isGET = RecordedRequest.method(of: request).uppercased() == "GET"
        return Problem(
            error: .notGraphQL("\(label) is no GraphQL request: \(reason). \(fix)"), reason: shown ?? reason,
            part: part ?? (isGET ? "query items" : "body"), fix: fix)
    }

    /// A document that names no one operation because of `reason`; `part` is what the client changes.
    func unresolved(_ reason: String, fix: String, part: String) -> Problem {
        Problem(
            error: .unresolvedOperation("the GraphQL document of \(label) \(reason). \(fix)"),
            reason: "its document \(reason)", part: part, fix: fix)
    }
}

#if DEBUG
    /// For tests: how many times the bodies a test watches are read as GraphQL requests. Tests run in
    /// parallel in one process, so each watches a body of its own. Debug builds only: a release build
    /// pays nothing, a debug one a lock a read.
    extension GraphQLRequestReader {
        private static let readsOfWatched = Locked<[Data: Int]>([:])

        /// Starts counting the reads of `body`.
        static func watch(_ body: Data) {
            readsOfWatched.withLock { $0[body] = 0 }
        }

        /// Stops counting the reads of `body`, and says how many there were.
        static func stopWatching(_ body: Data) -> Int {
            readsOfWatched.withLock { $0.removeValue(forKey: body) ?? 0 }
        }

        fileprivate static func countRead(of body: Data) {
            readsOfWatched.withLock { watched in
                if !watched.isEmpty, let count = watched[body] { watched[body] = count + 1 }
            }
        }
    }
#endif
