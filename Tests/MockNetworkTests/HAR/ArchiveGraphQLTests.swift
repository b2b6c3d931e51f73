import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Archives replay GraphQL requests by operation (name, type, variables), in recorded order, and
/// redaction reaches into variables without making replay miss.
final class ArchiveGraphQLTests: XCTestCase {
    private var folder: URL!
    private let endpoint = "https://api.example.com/graphql"

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveGraphQLTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private static let getUser = "query GetUser($id: ID!) { user(id: $id) { id name } }"
    private static let createPost = "mutation CreatePost($title: String!) { createPost(title: $title) { id } }"

    /// A `POST` body of one operation.
    private func operation(_ document: String, _ variables: String) -> String {
        #"{"query":"\#(document)","variables":\#(variables)}"#
    }

    private func entry(_ body: String, answer: String, method: String = "POST", url: String? = nil)
        -> HTTPArchive.Entry
    {
        HTTPArchive.Entry(
            request: HTTPArchive.Request(
                method: method, url: url ?? endpoint, headers: [HTTPArchive.Header("Content-Type", "application/json")],
                body: method == "POST" ? HTTPArchive.Body(Data(body.utf8), mimeType: "application/json") : nil),
            response: HTTPArchive.Response(
                status: 200, headers: [HTTPArchive.Header("Content-Type", "application/graphql-response+json")],
                body: HTTPArchive.Body(Data(answer.utf8), mimeType: "application/graphql-response+json")))
    }

    /// GetUser 7, GetUser 8, CreatePost, then GetUser 7 again (the user renamed meanwhile), all at one URL.
    private var archive: HTTPArchive {
        HTTPArchive(entries: [
            entry(operation(Self.getUser, #"{"id": 7}"#), answer: #"{"data":{"user":{"id":"7","name":"Ada"}}}"#),
            entry(operation(Self.getUser, #"{"id": 8}"#), answer: #"{"data":{"user":{"id":"8","name":"Grace"}}}"#),
            entry(
                operation(Self.createPost, #"{"title": "Hello"}"#), answer: #"{"data":{"createPost":{"id":"p1"}}}"#),
            entry(
                operation(Self.getUser, #"{"id": 7}"#),
                answer: #"{"data":{"user":{"id":"7","name":"Ada Lovelace"}}}"#),
        ])
    }

    private func post(_ mocks: MockRegistry, _ body: String) async throws -> String {
        try await send(
            mocks.session, "POST", endpoint, headers: ["Content-Type": "application/json"], body: Data(body.utf8)
        ).text
    }

    func testEachOperationAtOneURLReplaysItsOwnAnswerAndRepeatsInRecordedOrder() async throws {
        let mocks = MockRegistry()
        try mocks.replay(archive)

        // Variables compared as JSON: spacing, key order and 7.0 for 7 make no difference.
        let answers = [
            try await post(mocks, operation(Self.getUser, #"{"id":8}"#)),
            try await post(mocks, operation(Self.createPost, #"{"title":"Hello"}"#)),
            try await post(mocks, operation(Self.getUser, #"{"id":7.0}"#)),
            try await post(mocks, #"{"variables":{"id":7},"operationName":"GetUser","query":"\#(Self.getUser)"}"#),
            try await post(mocks, operation(Self.getUser, #"{"id":7}"#)),
        ]
        XCTAssertEqual(
            answers,
            [
                #"{"data":{"user":{"id":"8","name":"Grace"}}}"#, #"{"data":{"createPost":{"id":"p1"}}}"#,
                #"{"data":{"user":{"id":"7","name":"Ada"}}}"#, #"{"data":{"user":{"id":"7","name":"Ada Lovelace"}}}"#,
                #"{"data":{"user":{"id":"7","name":"Ada Lovelace"}}}"#,
            ])
        XCTAssertEqual(mocks.failures, [])
    }

    func testAGETOperationReplaysByItsOperationWhateverItsQueryItemsOrder() async throws {
        func address(_ items: [(String, String)]) throws -> String {
            var components = try XCTUnwrap(URLComponents(string: endpoint))
            components.queryItems = items.map { URLQueryItem(name: $0.0, value: $0.1) }
            return try XCTUnwrap(components.url).absoluteString
        }
        let recorded = try address([("query", Self.getUser), ("variables", #"{"id":7}"#)])
        let mocks = MockRegistry()
        try mocks.replay(
            HTTPArchive(entries: [entry("", answer: #"{"data":{"user":null}}"#, method: "GET", url: recorded)]))

        let live = try address([("variables", #"{ "id": 7 }"#), ("operationName", "GetUser"), ("query", Self.getUser)])
        let reply = try await send(mocks.session, "GET", live)
        XCTAssertEqual(reply.text, #"{"data":{"user":null}}"#)
        XCTAssertEqual(mocks.failures, [])
    }

    func testAnOperationTheArchiveLacksFailsNamingItAndTheNearestEntry() async throws {
        let file = folder.appendingPathComponent("users.har")
        try archive.write(to: file)
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .never)

        let error = await thrownError { try await self.post(mocks, self.operation(Self.getUser, #"{"id":9}"#)) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        let lines = try XCTUnwrap(mocks.takeFailures().first?.message).split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first,
            #"MockNetwork: no entry for POST https://api.example.com/graphql (query GetUser {"id":9}) in the "#
                + "archive \(file.path).")
        XCTAssertEqual(
            lines.dropFirst().first,
            #"Nearest: POST GraphQL query GetUser with exactly variables {"id":7} at https://api.example.com/graphql "#
                + "(variables.id 9 ≠ 7)")
    }

    func testABatchReplaysOperationByOperationAndEachAlsoAnswersAlone() async throws {
        let batch =
            "[\(operation(Self.getUser, #"{"id":7}"#)),\(operation(Self.createPost, #"{"title":"Hi"}"#))]"
        let mocks = MockRegistry()
        try mocks.replay(
            HTTPArchive(entries: [
                entry(batch, answer: #"[{"data":{"user":{"id":"7"}}}, {"data":{"createPost":{"id":"p2"}}}]"#)
            ]))

        let whole = try await post(mocks, batch)
        XCTAssertEqual(whole, #"[{"data":{"user":{"id":"7"}}},{"data":{"createPost":{"id":"p2"}}}]"#)
        let alone = try await post(mocks, operation(Self.getUser, #"{"id":7}"#))
        XCTAssertEqual(alone, #"{"data":{"user":{"id":"7"}}}"#)
        XCTAssertEqual(mocks.failures, [])
    }

    func testRequestsThatCarryNoOperationStillReplayByURL() async throws {
        let mocks = MockRegistry()
        try mocks.replay(
            HTTPArchive(entries: [
                entry(#"{"query":"cats"}"#, answer: "[]", url: "https://api.example.com/search"),
                entry(operation(Self.getUser, #"{"id":7}"#), answer: #"{"data":{"user":null}}"#),
            ]))
        let search = try await send(
            mocks.session, "POST", "https://api.example.com/search", body: Data(#"{"query":"dogs"}"#.utf8))
        XCTAssertEqual(search.text, "[]", "no GraphQL: the URL and method match, as before")
        XCTAssertEqual(mocks.failures, [])
    }

    // MARK: Redaction

    func testARedactedValueFitsAnyValueWholeOrInsideAStringAndTheRestMustBeAsRecorded() async throws {
        // As redaction leaves them: a number and a token replaced whole, a secret inside a string.
        let recorded = #"{"input":{"pin":"REDACTED","token":"REDACTED","note":"key REDACTED here","id":7}}"#
        let mocks = MockRegistry()
        try mocks.replay(HTTPArchive(entries: [entry(operation(Self.createPost, recorded), answer: "{}")]))

        let fits = #"{"input":{"pin":2024,"token":{"a":1},"note":"key abc-123 here","id":7}}"#
        let answer = try await post(mocks, operation(Self.createPost, fits))
        XCTAssertEqual(answer, "{}")
        XCTAssertEqual(mocks.failures, [])
        for misses in [
            #"{"input":{"pin":1,"token":"t","note":"key abc-123 there","id":7}}"#,
            #"{"input":{"pin":1,"token":"t","note":"key  here","id":8}}"#,
            #"{"input":{"pin":1,"note":"key  here","id":7}}"#,
        ] {
            _ = await thrownError { try await self.post(mocks, self.operation(Self.createPost, misses)) }
            XCTAssertEqual(mocks.takeFailures().count, 1, misses)
        }
    }

    func testRedactedVariablesNeverReachTheFileAndReplayStillAnswers() async throws {
        let login = "mutation LogIn($input: LogInInput!) { logIn(input: $input) { ok } }"
        let me = "query Me($token: String!) { me(token: $token) { name } }"
        var components = URLComponents()
        components.path = "/graphql"
        components.queryItems = [
            URLQueryItem(name: "query", value: me),
            URLQueryItem(name: "variables", value: #"{"token":"SECRET-TOKEN"}"#),
        ]
        let meTarget = try XCTUnwrap(components.string)
        let server = try LoopbackServer(
            routes: [
                "POST /graphql": .init(
                    status: 200, headers: [("Content-Type", "application/json")],
                    text: #"{"data":{"logIn":{"ok":true}}}"#),
                "GET \(meTarget)": .init(
                    status: 200, headers: [("Content-Type", "application/json")],
                    text: #"{"data":{"me":{"name":"Ada"}}}"#),
            ], maxRequests: 4, lifetime: 20)
        defer { server.stop() }
        let graphQL = try XCTUnwrap(server.url("/graphql")).absoluteString
        let file = folder.appendingPathComponent("login.har")
        let redaction = HTTPArchive.Redaction(jsonKeys: ["password", "token"])
        func logIn(_ mocks: MockRegistry, email: String, password: String) async throws -> Reply {
            try await send(
                mocks.session, "POST", graphQL, headers: ["Content-Type": "application/json"],
                body: Data(operation(login, #"{"input":{"email":"\#(email)","password":"\#(password)"}}"#).utf8))
        }

        let recording = MockRegistry()
        try recording.useArchive(at: file, mode: .rewrite, redaction: redaction)
        let loggedIn = try await logIn(recording, email: "ada@example.com", password: "SECRET-PASSWORD")
        XCTAssertEqual(loggedIn.status, 200)
        let meURL = try XCTUnwrap(server.url(meTarget)).absoluteString
        let recordedMe = try await send(recording.session, "GET", meURL)
        XCTAssertEqual(recordedMe.status, 200)
        XCTAssertEqual(recording.failures, [])
        XCTAssertEqual(server.received.map(\.method), ["POST", "GET"])

        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertFalse(text.contains("SECRET-PASSWORD"), "the nested variable reached the file")
        XCTAssertFalse(text.contains("SECRET-TOKEN"), "the GET's variable reached the file")
        let entries = try HTTPArchive(contentsOf: file).entries
        let recorded = try XCTUnwrap(entries.first?.request.body?.text)
        XCTAssertTrue(recorded.contains(#""variables":{"input":{"email":"ada@example.com","password":"REDACTED"}}"#))
        let query = try XCTUnwrap(URLComponents(string: entries[1].request.url)?.queryItems)
        XCTAssertEqual(query.first { $0.name == "variables" }?.value, #"{"token":"REDACTED"}"#)
        XCTAssertEqual(query.first { $0.name == "query" }?.value, me)

        // Replayed with the server gone: other secrets fit the redacted ones, the rest must be as recorded.
        server.stop()
        let replaying = MockRegistry()
        try replaying.useArchive(at: file, mode: .never, redaction: redaction)
        let replayed = try await logIn(replaying, email: "ada@example.com", password: "another one")
        XCTAssertEqual(replayed.text, #"{"data":{"logIn":{"ok":true}}}"#)
        components.queryItems = [
            URLQueryItem(name: "variables", value: #"{"token":"ANOTHER"}"#), URLQueryItem(name: "query", value: me),
        ]
        let otherToken = try XCTUnwrap(server.url(try XCTUnwrap(components.string))).absoluteString
        let replayedMe = try await send(replaying.session, "GET", otherToken)
        XCTAssertEqual(replayedMe.text, #"{"data":{"me":{"name":"Ada"}}}"#)
        XCTAssertEqual(replaying.failures, [])

        _ = await thrownError { try await logIn(replaying, email: "grace@example.com", password: "x") }
        let miss = try XCTUnwrap(replaying.takeFailures().first?.message)
        XCTAssertTrue(miss.contains(#"(variables.input {"email":"grace@example.com","password":"x"} ≠ "#), miss)
    }
}
