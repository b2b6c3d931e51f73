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

    private static let shapeFix = #"Send {"query": "…", "variables": {…}}, or an array of them for a batch."#

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

    private func operation(fields: [String: JSONValue], batchIndex: Int?) throws -> GraphQLOperation {
        let subject = batchIndex.map { "operation \($0 + 1) of its batch" } ?? "it"
        func string(_ name: String) throws -> String? {
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let text)?: return text.isEmpty && name == "operationName" ? nil : text
            case let other?:
                throw notGraphQL("\(subject) sends \(name) as \(other.kind), not a string", fix: Self.shapeFix)
            }
        }
        func object(_ name: String) throws -> [String: JSONValue] {
            switch fields[name] {
            case nil, .null?: return [:]
            case .object(let members)?: return members
            // A JSON-encoded object in a string, as some servers take it (Apollo Server does).
            case .string(let text)?: if let members = (try? JSONValue(json: text))?.objectValue { return members }
            default: break
            }
            let kind = fields[name]?.kind ?? ""
            throw notGraphQL("\(subject) sends \(name) as \(kind), not an object", fix: Self.shapeFix)
        }
        let document = try string("query")
        let operationName = try string("operationName")
        let extensions = try object("extensions")
        let variables = try object("variables")
        guard let document else {
            guard extensions["persistedQuery"]?["sha256Hash"]?.stringValue != nil else {
                throw notGraphQL(
                    "\(subject) sends no query (the document) and no extensions.persistedQuery.sha256Hash (a "
                        + "persisted query's hash)",
                    fix: "Send one of them.")
            }
            // A persisted query's hash alone: the headers Apollo iOS sends tell the rest.
            let single = batchIndex == nil
            let header = { (name: String) in single ? request.value(forHTTPHeaderField: name) : nil }
            return GraphQLOperation(
                name: operationName ?? header("X-APOLLO-OPERATION-NAME"),
                type: header("X-APOLLO-OPERATION-TYPE").flatMap {
                    GraphQLOperation.OperationType(rawValue: $0.lowercased())
                },
                document: nil, variables: variables, extensions: extensions, batchIndex: batchIndex)
        }
        let chosen = try pick(in: document, named: operationName)
        // Free text in a field named `query` (a search's, say) is no document: an operation needs
        // its selection set.
        guard chosen.hasSelectionSet else {
            throw notGraphQL(
                "\(batchIndex == nil ? "its query" : "the query of \(subject)"), "
                    + "\(JSONValue.string(MockRegistry.shortened(document))), is no GraphQL document: "
                    + "\(chosen.type.rawValue) \(chosen.name ?? "(anonymous)") has no selection set ({ … })",
                fix: "Send a document such as query GetUser { user { id } }.", part: "document")
        }
        return GraphQLOperation(
            name: operationName ?? chosen.name, type: chosen.type, document: document, variables: variables,
            extensions: extensions, batchIndex: batchIndex)
    }

    /// The operation of `document` that `name` names, or its only one.
    private func pick(in document: String, named name: String?) throws -> GraphQLDocument.Operation {
        let operations: [GraphQLDocument.Operation]
        do {
            operations = try GraphQLDocument.recentOperations(in: document)
        } catch let error as GraphQLDocument.UnterminatedString {
            throw unresolved(
                "has \(error.block ? "a block string" : "a string") that never ends (from line \(error.line))",
                fix: error.block ? "End it with \"\"\"." : "End it with \" on the same line.", part: "document")
        }
        // Only for a failure's text: a request's lookup reads the document on every request.
        var defined: String {
            operations.map { "\($0.type.rawValue) \($0.name ?? "(anonymous)")" }.joined(separator: ", ")
        }
        if let name {
            guard let operation = operations.first(where: { $0.name == name }) else {
                throw unresolved(
                    "defines no operation named \"\(name)\""
                        + (operations.isEmpty ? " (it defines none)" : " (it defines \(defined))"),
                    fix: "Send the operationName of an operation the document defines.", part: "request")
            }
            return operation
        }
        guard operations.count == 1 else {
            throw operations.isEmpty
                ? unresolved(
                    "defines no operation (a query, mutation or subscription)",
                    fix: "Send a document that defines one.", part: "document")
                : unresolved(
                    "defines \(operations.count) operations (\(defined)) and the request names none",
                    fix: "Send operationName to say which one to run.", part: "request")
        }
        return operations[0]
    }

    /// A request that is no GraphQL request because of `reason`; `part` is what the client changes
    /// (its body, or a `GET`'s query items, unless given), `shown` the reason as a report says it.
    private func notGraphQL(_ reason: String, fix: String, part: String? = nil, shown: String? = nil) -> Problem {
        let isGET = RecordedRequest.method(of: request).uppercased() == "GET"
        return Problem(
            error: .notGraphQL("\(label) is no GraphQL request: \(reason). \(fix)"), reason: shown ?? reason,
            part: part ?? (isGET ? "query items" : "body"), fix: fix)
    }

    /// A document that names no one operation because of `reason`; `part` is what the client changes.
    private func unresolved(_ reason: String, fix: String, part: String) -> Problem {
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
