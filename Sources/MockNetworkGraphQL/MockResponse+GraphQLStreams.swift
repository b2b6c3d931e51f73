import Foundation
import MockNetwork

/// GraphQL answers over time: incremental delivery in `multipart/mixed` parts, as Apollo iOS reads
/// it for `@defer` and for subscriptions, and GraphQL over server-sent events.
extension MockResponse {
    /// How `multipart/mixed` parts carry a GraphQL answer over time, named in the `Content-Type` as
    /// Apollo iOS expects it.
    public enum GraphQLIncrementalSpec: String, Sendable, Hashable, CaseIterable {
        /// `@defer` (`deferSpec=20220824`): each payload is a part as it is, the first
        /// `{"data": …, "hasNext": true}`, the next ones `{"incremental": [{"label": …, "data": …,
        /// "path": […]}], "hasNext": …}`, the last with `"hasNext": false`. Apollo iOS finds a deferred
        /// fragment by the `label` its `@defer` gives and the `path` to the field it is in.
        case deferred = "deferSpec=20220824"
        /// A subscription over multipart HTTP (`subscriptionSpec=1.0`): each payload is one result
        /// (`{"data": …}`), sent wrapped as `{"payload": …}`.
        case subscription = "subscriptionSpec=1.0"
    }

    /// A GraphQL answer over time in `multipart/mixed` parts with the boundary `graphql`, one part
    /// per payload (`content-type: application/json`), the first with the response and each next one
    /// `every` after the one before, as Apollo Router sends them and Apollo iOS reads them.
    ///
    /// `Content-Type` is `multipart/mixed; boundary="graphql"; deferSpec=20220824` (or
    /// `subscriptionSpec=1.0`) unless `headers` sets it. Each payload is sent as compact JSON; each
    /// piece of the body ends with the boundary line after its part, so a client has each payload
    /// when its piece comes.
    ///
    /// ```swift
    /// // query GetUser { user { id ... @defer(label: "UserBio") { bio } } }
    /// .graphQLMultipart(
    ///     [#"{"data": {"user": {"id": "7"}}, "hasNext": true}"#,
    ///      #"{"incremental": [{"label": "UserBio", "data": {"bio": "…"}, "path": ["user"]}], "hasNext": false}"#],
    ///     every: .milliseconds(50))
    /// ```
    ///
    /// A payload that is no JSON object (or, with ``GraphQLIncrementalSpec/deferred``, lacks `hasNext`
    /// or both `data` and `incremental`, or has an incremental item without its `path`:
    /// ``GraphQLFormatError/invalidAnswer(_:)``), or a negative `every`
    /// (`MockNetworkError.invalidStream(_:)`), fails the request, and the test at this call.
    /// An item's `label` is optional, as the incremental-delivery spec has it (an unlabeled `@defer`
    /// has none), but where the request's query labels its `@defer`s (Apollo iOS's does, and finds a
    /// deferred fragment by its label), an item without one of those labels fails the request and
    /// the test at this call, when the request comes.
    public static func graphQLMultipart(
        _ payloads: [String], spec: GraphQLIncrementalSpec = .deferred, every interval: Duration = .zero,
        status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) -> MockResponse {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        var response = checked(at: location) {
            try multipartAnswer(payloads, spec: spec, every: interval, status: status, headers: headers)
        }
        if spec == .deferred, response.error == nil {
            // Only the request's document tells whether its @defers carry labels (Apollo's do; an
            // unlabeled @defer, as urql and graphql-js send it, has none): checked when it comes.
            let items = DeferredItems(payloads)
            response.requestCheck = RequestCheck(at: location) { items.labelError(for: $0.graphQLOperation?.document) }
        }
        return response
    }

    private static func multipartAnswer(
        _ payloads: [String], spec: GraphQLIncrementalSpec, every interval: Duration, status: Int,
        headers: [String: String]
    ) throws -> MockResponse {
        let parts = try payloads.enumerated().map { index, text in
            let payload = try graphQLPayload(text, number: index + 1)
            let missing = payload["hasNext"] == nil ? "hasNext" : "data or incremental"
            if spec == .deferred, payload["hasNext"] == nil || (payload["data"] == nil && payload["incremental"] == nil)
            {
                throw GraphQLFormatError.invalidAnswer(
                    "payload \(index + 1) of the @defer answer has no \(missing), which Apollo iOS needs in each part. "
                        + #"Give {"data": …, "hasNext": true} first, then {"incremental": […], "hasNext": …}."#)
            }
            if spec == .deferred, let incremental = payload["incremental"] {
                try checkIncremental(incremental, payload: index + 1)
            }
            let body: JSONValue = spec == .subscription ? ["payload": payload] : payload
            return MultipartPart(headers: ["content-type": "application/json"], body: Data(body.description.utf8))
        }
        guard !parts.isEmpty else {
            throw GraphQLFormatError.invalidAnswer("a GraphQL answer over time needs a payload, and none was given.")
        }
        var headers = headers
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            headers["Content-Type"] = "multipart/mixed; boundary=\"graphql\"; \(spec.rawValue)"
        }
        return try stream(
            try MultipartPart.framed(parts, boundary: "graphql"), every: interval, status: status, headers: headers,
            contentType: "application/octet-stream")
    }

    /// A GraphQL answer over time as server-sent events (`text/event-stream`), as GraphQL over SSE
    /// sends it in its distinct connections mode: a `next` event for each payload (a result,
    /// `{"data": …}`, as compact JSON), then a `complete` event with an empty `data:`; the first with
    /// the response and each next one `every` after the one before.
    ///
    /// A payload that is no JSON object (``GraphQLFormatError/invalidAnswer(_:)``) or a negative `every`
    /// (`MockNetworkError.invalidStream(_:)`) fails the request, and the test at this call.
    public static func graphQLEvents(
        _ payloads: [String], every interval: Duration = .zero, status: Int = 200, headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            let next = try payloads.enumerated().map { index, text in
                ServerSentEvent(event: "next", data: try graphQLPayload(text, number: index + 1).description)
            }
            return try eventStream(
                next + [ServerSentEvent(event: "complete", data: "")], every: interval, status: status,
                headers: headers)
        }
    }

    /// The `incremental` items of `@defer`'s payload `number`: each with its `path`, which clients
    /// read to place its data (Apollo iOS fails with `missingPath` without one).
    private static func checkIncremental(_ incremental: JSONValue, payload number: Int) throws {
        let fix =
            #"Give each item the path where its data goes, and the label of its @defer when the query "#
            + #"labels it: {"label": "UserBio", "data": {"bio": "Hi"}, "path": ["user"]}."#
        guard let items = incremental.arrayValue else {
            throw GraphQLFormatError.invalidAnswer(
                "payload \(number) of the @defer answer has incremental as \(incremental.kind), not an array of "
                    + "items. " + fix)
        }
        for (index, item) in items.enumerated() where item["path"]?.arrayValue == nil {
            throw GraphQLFormatError.invalidAnswer(
                "incremental item \(index + 1) of payload \(number) of the @defer answer has no path, which "
                    + "clients need to place its data (Apollo iOS fails with missingPath). " + fix)
        }
    }

    /// Payload `number`, which must be a JSON object.
    private static func graphQLPayload(_ text: String, number: Int) throws -> JSONValue {
        guard let payload = try? JSONValue(json: text), case .object = payload else {
            throw GraphQLFormatError.invalidAnswer(
                "payload \(number) of the GraphQL answer, \(MockRegistry.shortened(text)), is no JSON object. "
                    + #"Give each result as JSON, such as {"data": {"user": {"id": "7"}}}."#)
        }
        return payload
    }
}
