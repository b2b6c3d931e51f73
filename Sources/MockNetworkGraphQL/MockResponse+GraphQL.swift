import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers as a GraphQL server gives them: `data` (as JSON text or an `Encodable`), `errors` alone (a
/// request error), or both (a partial result).
extension MockResponse {
    /// One entry of a GraphQL answer's `errors`: what went wrong, and where.
    ///
    /// ```swift
    /// .graphQL(data: #"{"user": null}"#, errors: [.init(message: "No user 7", path: ["user"])])
    /// ```
    public struct GraphQLError: Sendable, Hashable {
        /// A place in the GraphQL document, both counted from 1.
        public struct Location: Sendable, Hashable {
            /// The line.
            public var line: Int
            /// The column.
            public var column: Int

            /// The place at `line` and `column`, both counted from 1.
            public init(line: Int, column: Int) {
                self.line = line
                self.column = column
            }
        }

        /// What went wrong, for a developer to read.
        public var message: String
        /// Where in the document; left out of the answer when empty.
        public var locations: [Location]
        /// The field the error is about, from the answer's root: field names and list indices
        /// (`["user", "friends", 0]`); left out of the answer when empty.
        public var path: [JSONValue]
        /// Anything more, such as `["code": "NOT_FOUND"]`; left out of the answer when empty.
        public var extensions: [String: JSONValue]

        /// An error with `message`, and where it happened when given.
        public init(
            message: String, locations: [Location] = [], path: [JSONValue] = [], extensions: [String: JSONValue] = [:]
        ) {
            self.message = message
            self.locations = locations
            self.path = path
            self.extensions = extensions
        }

        /// The error as the answer's JSON holds it.
        var json: JSONValue {
            var members: [String: JSONValue] = ["message": .string(message)]
            if !locations.isEmpty {
                members["locations"] = .array(
                    locations.map { ["line": .number(Double($0.line)), "column": .number(Double($0.column))] })
            }
            if !path.isEmpty { members["path"] = .array(path) }
            if !extensions.isEmpty { members["extensions"] = .object(extensions) }
            return .object(members)
        }
    }

    /// A GraphQL answer with `data` given as JSON text (sent as written), and `errors` beside it for
    /// a partial result (`data: "null"` when a field error nulled the whole result).
    ///
    /// `Content-Type` is `application/graphql-response+json` when `request`'s `Accept` asks for it
    /// (above `application/json`, or listed first at the same weight), else `application/json`,
    /// unless `headers` sets it. The status is 200 unless given, as GraphQL servers answer
    /// `application/json` requests.
    ///
    /// ```swift
    /// mocks.register("https://api.example.com/graphql") { request in
    ///     .graphQL(data: #"{"user": {"id": "7", "name": "Ada"}}"#, for: request)
    /// }
    /// ```
    ///
    /// `data` that is not a JSON object or `null` (``GraphQLFormatError/invalidAnswer(_:)``) or a status
    /// outside `200...599` fails the request, and the test at this call.
    public static func graphQL(
        data: String, errors: [GraphQLError] = [], extensions: [String: JSONValue] = [:],
        for request: URLRequest? = nil, status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try graphQLText(
                data: data, errors: errors, extensions: extensions, for: request, status: status, headers: headers)
        }
    }

    /// `graphQL(data:errors:extensions:for:status:headers:)` with JSON text,
    /// throwing what it cannot send.
    private static func graphQLText(
        data: String, errors: [GraphQLError], extensions: [String: JSONValue], for request: URLRequest?, status: Int,
        headers: [String: String]
    ) throws -> MockResponse {
        let value: JSONValue
        do {
            value = try JSONValue(json: data)
        } catch {
            throw GraphQLFormatError.invalidAnswer(
                "the GraphQL answer's data \(MockRegistry.shortened(data)) is not JSON. Give a JSON object, "
                    + #"such as {"user": {"id": "7"}}, or "null"."#)
        }
        try checkData(value, what: "data \(MockRegistry.shortened(data))")
        return try graphQLAnswer(
            data: data.trimmingCharacters(in: .whitespacesAndNewlines), errors: errors, extensions: extensions,
            for: request, status: status, headers: headers)
    }

    /// A GraphQL answer with `errors` and no `data`: a request error, such as a document that does not
    /// validate (the specification suggests status 400 for it with `application/graphql-response+json`).
    /// `Content-Type` and status as for `.graphQL(data:)`; a status outside `200...599` fails the
    /// request, and the test at this call.
    public static func graphQL(
        errors: [GraphQLError], extensions: [String: JSONValue] = [:], for request: URLRequest? = nil,
        status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try graphQLAnswer(
                data: nil, errors: errors, extensions: extensions, for: request, status: status, headers: headers)
        }
    }

    private static func graphQLAnswer(
        data: String?, errors: [GraphQLError], extensions: [String: JSONValue], for request: URLRequest?, status: Int,
        headers: [String: String]
    ) throws -> MockResponse {
        var members: [String] = []
        if let data { members.append(#""data":"# + data) }
        if !errors.isEmpty || data == nil {
            members.append(#""errors":"# + JSONValue.array(errors.map(\.json)).description)
        }
        if !extensions.isEmpty { members.append(#""extensions":"# + JSONValue.object(extensions).description) }
        var headers = headers
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            headers["Content-Type"] =
                graphQLMediaType(accepting: request?.value(forHTTPHeaderField: "Accept"))
                + "; charset=utf-8"
        }
        return try MockResponse(
            status: status, headers: headers, body: Data("{\(members.joined(separator: ","))}".utf8))
    }

    /// A GraphQL answer with `data` encoded with `encoder`, `errors` beside it when given; otherwise as
    /// the form with JSON text says.
    ///
    /// When `encoder` cannot encode `data` or it is no JSON object (``GraphQLFormatError/invalidAnswer(_:)``),
    /// or the status is outside `200...599`, the request fails, and the test at this call.
    @_disfavoredOverload  // JSON text, a String, picks the form above
    public static func graphQL<Value: Encodable>(
        data: Value, errors: [GraphQLError] = [], extensions: [String: JSONValue] = [:],
        encoder: JSONEncoder = JSONEncoder(), for request: URLRequest? = nil, status: Int = 200,
        headers: [String: String] = [:], fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try graphQLEncoded(
                data: data, errors: errors, extensions: extensions, encoder: encoder, for: request, status: status,
                headers: headers)
        }
    }

    private static func graphQLEncoded<Value: Encodable>(
        data: Value, errors: [GraphQLError], extensions: [String: JSONValue], encoder: JSONEncoder,
        for request: URLRequest?, status: Int, headers: [String: String]
    ) throws -> MockResponse {
        let encoded: Data
        do {
            encoded = try encoder.encode(data)
        } catch {
            throw GraphQLFormatError.invalidAnswer(
                "the GraphQL answer's data, a \(Value.self), could not be encoded: \(reason(error)). Give a value "
                    + "JSONEncoder can encode, or the JSON text.")
        }
        try checkData(try JSONValue(json: encoded), what: "data, a \(Value.self),")
        return try graphQLAnswer(
            data: String(decoding: encoded, as: UTF8.self), errors: errors, extensions: extensions, for: request,
            status: status, headers: headers)
    }

    /// What an encoding error says, without Foundation's wrapping.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? EncodingError, case .invalidValue(_, let context) = error else { return "\(error)" }
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return context.debugDescription + (path.isEmpty ? "" : " (at \(path))")
    }

    private static func checkData(_ value: JSONValue, what: String) throws {
        switch value {
        case .object, .null: return
        default:
            throw GraphQLFormatError.invalidAnswer(
                "the GraphQL answer's \(what) is \(value.kind), but GraphQL's data is an object of the "
                    + "operation's fields (or null). Give the fields, such as {\"user\": {\"id\": \"7\"}}.")
        }
    }

    /// The media type of a GraphQL answer for a request that accepts `accept`:
    /// `application/graphql-response+json` when it is acceptable at least as much as
    /// `application/json` (listed first at the same weight), else `application/json` (with no
    /// `Accept`, or an `Accept` that names neither, as a legacy client expects).
    package static func graphQLMediaType(accepting accept: String?) -> String {
        var best: (type: String, weight: Double)?
        for member in HeaderValue.list(accept ?? "") {
            let type = member.lowercased
            guard type == "application/graphql-response+json" || type == "application/json" else { continue }
            let weight = member.parameters["q"].flatMap(Double.init) ?? 1
            if weight > 0, weight > best?.weight ?? 0 { best = (type, weight) }
        }
        return best?.type ?? "application/json"
    }
}
