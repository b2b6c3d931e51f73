import Foundation
import MockNetwork
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// GraphQL answers over time, framed as Apollo iOS reads them (multipart/mixed, boundary "graphql")
/// and as GraphQL over server-sent events sends them.
@Suite struct GraphQLStreamTests {
    private let deferred = [
        #"{"data": {"user": {"id": "7"}}, "hasNext": true}"#,
        #"{"incremental": [{"label": "UserBio", "data": {"bio": "Hi"}, "path": ["user"]}], "hasNext": false}"#,
    ]

    private func text(_ response: MockResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func deferredPartsInTheBoundaryGraphQL() throws {
        let response = MockResponse.graphQLMultipart(deferred)
        #expect(response.headers["Content-Type"] == #"multipart/mixed; boundary="graphql"; deferSpec=20220824"#)
        #expect(
            text(response)
                == "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n"
                + #"{"data":{"user":{"id":"7"}},"hasNext":true}"#
                + "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n"
                + #"{"hasNext":false,"incremental":[{"data":{"bio":"Hi"},"label":"UserBio","path":["user"]}]}"#
                + "\r\n--graphql--\r\n")
        let parts = try MultipartPart.parts(in: response.body, contentType: response.headers["Content-Type"]!)
        #expect(parts.map(\.contentType) == ["application/json", "application/json"])
        #expect(try parts.map { try $0.json(JSONValue.self) } == deferred.map { try JSONValue(json: $0) })
    }

    /// The body read the way Apollo iOS 1.25's multipart interceptor reads it: split at CR LF
    /// `--graphql`, chunks that are empty, `--` or a lone line break skipped, each chunk's
    /// `content-type:` line and JSON split at the blank line.
    @Test func apolloReadsEachPayload() throws {
        let response = MockResponse.graphQLMultipart(deferred)
        var payloads: [JSONValue] = []
        for chunk in text(response).components(separatedBy: "\r\n--graphql") {
            if chunk.isEmpty || chunk == "--\r\n" || chunk == "--" || chunk == "\r\n" { continue }
            let lines = chunk.components(separatedBy: "\r\n\r\n").map { $0.trimmingCharacters(in: .newlines) }
            #expect(lines.count == 2)
            #expect(lines[0].lowercased().hasPrefix("content-type:"))
            let payload = try JSONValue(json: lines[1])
            #expect(payload["hasNext"] != nil)
            payloads.append(payload)
        }
        #expect(payloads.count == 2)
    }

    @Test func subscriptionPayloadsAreWrapped() throws {
        let response = MockResponse.graphQLMultipart(
            [#"{"data": {"messageAdded": {"id": "1"}}}"#, #"{"data": {"messageAdded": {"id": "2"}}}"#],
            spec: .subscription, status: 200, headers: ["X-Trace": "t"])
        #expect(response.headers["Content-Type"] == #"multipart/mixed; boundary="graphql"; subscriptionSpec=1.0"#)
        #expect(response.headers["X-Trace"] == "t")
        let parts = try MultipartPart.parts(in: response.body, contentType: response.headers["Content-Type"]!)
        #expect(
            parts.map(\.text) == [
                #"{"payload":{"data":{"messageAdded":{"id":"1"}}}}"#,
                #"{"payload":{"data":{"messageAdded":{"id":"2"}}}}"#,
            ])
    }

    @Test func payloadsApolloWouldRejectAreAClearError() {
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                "payload 2 of the @defer answer has no hasNext, which Apollo iOS needs in each part. Give "
                    + #"{"data": …, "hasNext": true} first, then {"incremental": […], "hasNext": …}."#)
        ) { try MockResponse.graphQLMultipart([deferred[0], #"{"incremental": []}"#]).validated() }
        #expect(throws: GraphQLFormatError.self) {
            try MockResponse.graphQLMultipart([#"{"hasNext": false}"#]).validated()
        }
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                "payload 1 of the GraphQL answer, [1], is no JSON object. Give each result as JSON, such as "
                    + #"{"data": {"user": {"id": "7"}}}."#)
        ) { try MockResponse.graphQLMultipart(["[1]"], spec: .subscription).validated() }
        #expect(throws: GraphQLFormatError.self) { try MockResponse.graphQLMultipart([]).validated() }
        #expect(throws: GraphQLFormatError.self) { try MockResponse.graphQLEvents(["nope"]).validated() }
        #expect(throws: MockNetworkError.self) {
            try MockResponse.graphQLMultipart(deferred, every: .seconds(-1)).validated()
        }
    }

    /// Every incremental item needs its `path` (clients place its data there; Apollo iOS fails with
    /// `missingPath`), and `incremental` is an array: checked at the builder, whatever the request.
    @Test func anIncrementalItemWithoutItsPathIsAClearError() {
        let fix =
            #"Give each item the path where its data goes, and the label of its @defer when the query "#
            + #"labels it: {"label": "UserBio", "data": {"bio": "Hi"}, "path": ["user"]}."#
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                "incremental item 2 of payload 2 of the @defer answer has no path, which clients need to place "
                    + "its data (Apollo iOS fails with missingPath). " + fix)
        ) {
            try MockResponse.graphQLMultipart([
                deferred[0],
                #"{"incremental": [{"label": "A", "data": {}, "path": []}, {"label": "B", "data": {}}], "#
                    + #""hasNext": false}"#,
            ]).validated()
        }
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                "payload 2 of the @defer answer has incremental as an object, not an array of items. " + fix)
        ) {
            try MockResponse.graphQLMultipart([
                deferred[0], #"{"incremental": {"label": "A", "data": {}, "path": []}, "hasNext": false}"#,
            ]).validated()
        }
    }

    /// The incremental-delivery spec makes `label` optional: only `@defer(label:)` carries one, and
    /// urql's and graphql-js's clients send unlabeled `@defer`s. Such an answer is mocked as it is.
    @Test func anUnlabeledDeferIsAnsweredWithoutALabel() async throws {
        let mocks = MockRegistry()
        let unlabeled = #"{"incremental": [{"data": {"bio": "Hi"}, "path": ["user"]}], "hasNext": false}"#
        mocks.register(.graphQL("GetUser")) { _ in .graphQLMultipart([deferred[0], unlabeled]) }

        let (data, _) = try await mocks.session.data(
            for: GraphQLRequests.post(#"{"query": "query GetUser { user { id ... @defer { bio } } }"}"#))

        #expect(
            String(decoding: data, as: UTF8.self).contains(
                #"{"hasNext":false,"incremental":[{"data":{"bio":"Hi"},"path":["user"]}]}"#))
        #expect(mocks.failures.isEmpty)
    }

    /// Where the query labels each of its `@defer`s (Apollo iOS's do), an item without one of those
    /// labels fails the request, and the test at the builder: Apollo iOS would deliver the first
    /// result, then fail with `missingLabel`.
    @Test func aLabeledDefersAnswerNeedsItsLabels() async throws {
        let mocks = MockRegistry()
        let unlabeled = #"{"incremental": [{"data": {"bio": "Hi"}, "path": ["user"]}], "hasNext": false}"#
        let mislabeled =
            #"{"incremental": [{"label": "Bio", "data": {"bio": "Hi"}, "path": ["user"]}], "hasNext": false}"#
        mocks.register(.graphQL("GetUser")) { _ in .graphQLMultipart([deferred[0], unlabeled]) }
        let line = #line - 1
        mocks.register(.graphQL("GetPost")) { _ in .graphQLMultipart([deferred[0], mislabeled]) }
        mocks.register(.graphQL("GetProfile")) { _ in .graphQLMultipart(deferred) }

        let labeled = #"{"query": "query GetUser { user { id ... @defer(label: \"UserBio\") { bio } } }"}"#
        await #expect(throws: GraphQLFormatError.self) {
            _ = try await mocks.session.data(for: GraphQLRequests.post(labeled))
        }
        let post = #"{"query": "query GetPost { post { id ... @defer(label: \"PostBody\") { body } } }"}"#
        await #expect(throws: GraphQLFormatError.self) {
            _ = try await mocks.session.data(for: GraphQLRequests.post(post))
        }
        let profile = #"{"query": "query GetProfile { user { id ... @defer(label: \"UserBio\") { bio } } }"}"#
        let (data, _) = try await mocks.session.data(for: GraphQLRequests.post(profile))

        #expect(String(decoding: data, as: UTF8.self).contains(#""label":"UserBio""#))
        #expect(
            mocks.failures.map(\.message) == [
                #"MockNetwork: incremental item 1 of payload 2 of the @defer answer has no label, and the query "#
                    + #"labels each "#
                    + #"of its @defers ("UserBio"): Apollo iOS finds a deferred fragment by its label, and fails "#
                    + #"with missingLabel. Give the item the label of its @defer: {"label": "UserBio", "data": …, "#
                    + #""path": […]}."#,
                #"MockNetwork: incremental item 1 of payload 2 of the @defer answer has the label "Bio", which "#
                    + #"no @defer of "#
                    + #"the query carries (it labels "PostBody"). Give the item the label of the @defer it "#
                    + "answers, or none for an unlabeled @defer.",
            ])
        #expect(mocks.failures.map { $0.location?.line } == [line, line + 2])
    }

    /// GraphQL over SSE, distinct connections mode: `next` events, then `complete` with an empty `data:`.
    @Test func serverSentEvents() throws {
        let response = MockResponse.graphQLEvents(
            [#"{"data": {"messageAdded": {"id": "1"}}}"#, #"{"data": null, "errors": [{"message": "gone"}]}"#],
            every: .milliseconds(10))
        #expect(response.headers["Content-Type"] == "text/event-stream")
        #expect(
            text(response)
                == "event: next\ndata: {\"data\":{\"messageAdded\":{\"id\":\"1\"}}}\n\n"
                + "event: next\ndata: {\"data\":null,\"errors\":[{\"message\":\"gone\"}]}\n\n"
                + "event: complete\ndata:\n\n")
        #expect(text(MockResponse.graphQLEvents([])) == "event: complete\ndata:\n\n")
    }
}

/// A client reading the body as it arrives gets each part whole: every piece ends with the
/// boundary line after its part.
final class GraphQLStreamDeliveryTests: XCTestCase {
    func testEachPieceEndsWithTheBoundaryLineAfterItsPart() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/graphql"
        mocks.register(.url(address)) { _ in
            .graphQLMultipart(
                [
                    #"{"data": {"a": 1}, "hasNext": true}"#,
                    #"{"incremental": [{"label": "B", "data": {"b": 2}, "path": []}], "hasNext": true}"#,
                    #"{"incremental": [{"label": "C", "data": {"c": 3}, "path": []}], "hasNext": false}"#,
                ], every: .milliseconds(20))
        }
        let recorder = EventRecorder()
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)
        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: [done], timeout: 10)

        let chunks = recorder.chunks.map { String(decoding: $0, as: UTF8.self) }
        XCTAssertFalse(chunks.isEmpty)
        for chunk in chunks {
            XCTAssertTrue(chunk.hasSuffix("\r\n--graphql") || chunk.hasSuffix("\r\n--graphql--\r\n"), chunk)
        }
        XCTAssertEqual(chunks.joined().components(separatedBy: "content-type: application/json").count, 4)
        XCTAssertEqual(recorder.last, .complete(nil))
    }
}
