import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkArchives
    import MockNetworkApp
#endif

/// A launch scenario answers GraphQL operations from `graphql/<OperationName>.json`: in the media
/// type asked for, numbered files in order, and a missing operation as an unmatched request.
final class LaunchGraphQLTests: XCTestCase {
    private let endpoint = "https://api.example.com/graphql"
    private let breedsURL = "https://api.example.com/breeds"
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "LaunchGraphQLTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private static let user = #"{"data":{"user":{"id":"7","name":"Ada"}}}"#
    private static let taken =
        #"{"data":{"createPost":null},"errors":[{"message":"Title taken","path":["createPost"]}]}"#
    private static let created = #"{"data":{"createPost":{"id":"p1"}}}"#

    private func bundle() throws -> Bundle {
        let cart = HTTPArchive(entries: [
            HTTPArchive.Entry(
                request: HTTPArchive.Request(
                    method: "POST", url: endpoint,
                    body: HTTPArchive.Body(Data(#"{"query":"query GetCart { cart { items } }"}"#.utf8))),
                response: HTTPArchive.Response(
                    status: 200, headers: [HTTPArchive.Header("Content-Type", "application/json")],
                    body: HTTPArchive.Body(Data(#"{"data":{"cart":{"items":[]}}}"#.utf8))))
        ])
        return try temporaryBundle(
            self,
            files: [
                "Fixtures/signed-in/breeds.json": "[]",
                "Fixtures/signed-in/graphql/GetUser.json": Self.user,
                "Fixtures/signed-in/graphql/CreatePost.1.json": Self.taken,
                "Fixtures/signed-in/graphql/CreatePost.2.json": Self.created,
                "Fixtures/signed-in/graphql/Broken.json": "[1, 2]",
                "Fixtures/signed-out/breeds.json": "[]",
                "Fixtures/Archives/cart.har": String(decoding: try cart.json(), as: UTF8.self),
            ])
    }

    private func launched(_ environment: [String: String]) throws -> MockRegistry {
        try XCTUnwrap(MockRegistry.launched(stubs: [breedsURL: "breeds"], in: bundle(), environment: environment))
    }

    private func post(
        _ mocks: MockRegistry, _ document: String, variables: String = "{}", accept: String? = nil
    ) async throws -> Reply {
        var headers = ["Content-Type": "application/json"]
        headers["Accept"] = accept
        return try await send(
            mocks.session, "POST", endpoint, headers: headers,
            body: Data(#"{"query":"\#(document)","variables":\#(variables)}"#.utf8))
    }

    func testAnOperationIsAnsweredFromItsFileInTheMediaTypeTheRequestAccepts() async throws {
        let mocks = try launched(["MOCKNETWORK_SCENARIO": "signed-in"])
        let document = "query GetUser($id: ID!) { user(id: $id) { id name } }"

        let posted = try await post(
            mocks, document, variables: #"{"id":7}"#, accept: "application/graphql-response+json, application/json")
        XCTAssertEqual(posted.text, Self.user)
        XCTAssertEqual(
            posted.response.value(forHTTPHeaderField: "Content-Type"),
            "application/graphql-response+json; charset=utf-8")

        // A GET at another URL is answered too; with no Accept, as application/json.
        var components = try XCTUnwrap(URLComponents(string: "https://other.example.com/api"))
        components.queryItems = [URLQueryItem(name: "query", value: document)]
        let got = try await send(mocks.session, "GET", try XCTUnwrap(components.url).absoluteString)
        XCTAssertEqual(got.text, Self.user)
        XCTAssertEqual(got.response.value(forHTTPHeaderField: "Content-Type"), "application/json; charset=utf-8")

        let breeds = try await send(mocks.session, "GET", breedsURL)
        XCTAssertEqual(breeds.text, "[]", "the scenario's URL stubs answer as before")
        XCTAssertEqual(mocks.failures, [])
    }

    func testNumberedFilesAnswerAFlowInOrderAndTheLastRepeats() async throws {
        let mocks = try launched(["MOCKNETWORK_SCENARIO": "signed-in"])
        let document = "mutation CreatePost { createPost(title: \\\"Hi\\\") { id } }"
        var bodies: [String] = []
        for _ in 0..<3 { bodies.append(try await post(mocks, document).text) }
        XCTAssertEqual(bodies, [Self.taken, Self.created, Self.created])
        XCTAssertEqual(mocks.failures, [])
    }

    func testAnOperationWithNoFileFailsAsUnmatchedNamingItAndTheFilesThereAre() async throws {
        let environment = [
            "MOCKNETWORK_SCENARIO": "signed-in",
            "MOCKNETWORK_REPORT": folder.appendingPathComponent("report.json").path,
        ]
        let mocks = try launched(environment)
        let error = await thrownError {
            try await self.post(
                mocks, "query GetOrders($first: Int) { orders(first: $first) { id } }", variables: #"{"first":2}"#)
        }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)

        let report = try environment.mockNetworkReport { $0.requests.count == 1 && $0.inFlight == 0 }
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.unmatched.map(\.url), [endpoint])
        XCTAssertEqual(
            report.unmatched.first?.message,
            """
            MockNetwork: no handler for POST https://api.example.com/graphql (query GetOrders {"first":2}).
            The scenario "signed-in" has no file for the operation GetOrders: looked for \
            Fixtures/signed-in/graphql/GetOrders.json and Fixtures/signed-in/graphql/GetOrders.1.json; it holds \
            Broken.json, CreatePost.1.json, CreatePost.2.json, GetUser.json.
            Fix: add Fixtures/signed-in/graphql/GetOrders.json to the app's resources, holding the whole GraphQL \
            response ({"data": …} or {"errors": […]}); or numbered files GetOrders.1.json, GetOrders.2.json, … for a flow.
            """)
    }

    func testAFileThatIsNoGraphQLResponseFailsNamingIt() async throws {
        let mocks = try launched(["MOCKNETWORK_SCENARIO": "signed-in"])
        let error = await thrownError { try await self.post(mocks, "query Broken { broken }") }
        let expected =
            "MockNetwork: the scenario's file Fixtures/signed-in/graphql/Broken.json is no GraphQL response ([1, 2]). "
            + #"Write the whole response: {"data": {…}}, {"errors": [{"message": "…"}]}, or both."#
        XCTAssertEqual((error as? GraphQLFormatError)?.description, expected)
        XCTAssertEqual(mocks.failures.map(\.message), [expected])
    }

    func testAnArchiveAnswersTheOperationsTheScenarioHasNoFileFor() async throws {
        let mocks = try launched(["MOCKNETWORK_SCENARIO": "signed-in", "MOCKNETWORK_ARCHIVE": "cart"])
        let cart = try await post(mocks, "query GetCart { cart { items } }")
        XCTAssertEqual(cart.text, #"{"data":{"cart":{"items":[]}}}"#)
        let user = try await post(mocks, "query GetUser { user { id } }")
        XCTAssertEqual(user.text, Self.user, "the scenario's file wins where it has one")
        XCTAssertEqual(mocks.failures, [])
    }

    func testAScenarioWithNoGraphQLFolderAnswersNoOperation() async throws {
        let mocks = try launched(["MOCKNETWORK_SCENARIO": "signed-out"])
        _ = await thrownError { try await self.post(mocks, "query GetUser { user { id } }") }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        XCTAssertTrue(message.hasPrefix("MockNetwork: no handler for POST \(endpoint) (query GetUser)."), message)
        XCTAssertFalse(message.contains("graphql/"), message)
    }
}
