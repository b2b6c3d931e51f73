import Foundation
import MockNetwork
import MockNetworkGraphQL
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The unmatched report and the checks after the fact know operations.
@Suite struct GraphQLReportTests {
    private let mocks = MockRegistry()

    /// `GetUser` as Apollo iOS sends it: its `ID!` variable a string.
    private func getUser(_ id: String) -> URLRequest {
        GraphQLRequests.apollo(
            name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash,
            body:
                #"{"extensions":{\#(GraphQLRequests.clientLibrary)},"operationName":"GetUser","query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"\#(id)"}}"#
        )
    }

    /// The failure an unanswered `request` records.
    private func failure(_ request: URLRequest) async -> String {
        _ = try? await mocks.session.data(for: request)
        return mocks.failures.first?.message ?? ""
    }

    @Test func theReportNamesTheOperationAndTheNearestOneWithWhatDiffers() async throws {
        mocks.register(.graphQL("GetPosts"), answer: .status(200))
        let line = #line + 1
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]), answer: .status(200))
        mocks.register("https://api.example.com/health", answer: .status(200))

        let message = await failure(getUser("8"))
        #expect(
            message == """
                MockNetwork: no handler for POST https://api.example.com/graphql (query GetUser {"id":"8"}).
                Nearest: GraphQL operation GetUser with variables {"id":"7"} (variables.id "8" ≠ "7")
                Registered (3):
                  GraphQL operation GetPosts
                  GraphQL operation GetUser with variables {"id":"7"}
                  https://api.example.com/health
                Fix: the request's operation does not fit the GraphQL handler registered at \(#fileID):\(line) \
                (variables.id "8" ≠ "7"). Make the client send what that match expects, or loosen the match there.
                """)
    }

    /// A variable with the text the match expects but another JSON type stays a mismatch; the report
    /// says which types differ and how to register what came.
    @Test func aStringIDAgainstANumberSaysTheTypesDiffer() async throws {
        let line = #line + 1
        mocks.register(.graphQL("GetUser", variables: ["id": 7]), answer: .status(200))

        let message = await failure(getUser("7"))
        let difference =
            #"variables.id "7" ≠ 7 (a string, not a number: GraphQL sends ID values as strings; register ["id": "7"])"#
        #expect(
            message.split(separator: "\n").map(String.init) == [
                #"MockNetwork: no handler for POST https://api.example.com/graphql (query GetUser {"id":"7"})."#,
                #"Nearest: GraphQL operation GetUser with variables {"id":7} (\#(difference))"#,
                "Registered (1):",
                #"  GraphQL operation GetUser with variables {"id":7}"#,
                "Fix: the request's operation does not fit the GraphQL handler registered at \(#fileID):\(line) "
                    + "(\(difference)). Make the client send what that match expects, or loosen the match there.",
            ])
        let count = try #require(mocks.countFailure(.graphQL("GetUser", variables: ["id": 7]), .exactly(1)))
        #expect(
            count.split(separator: "\n").last
                == #"Nearest: POST https://api.example.com/graphql (query GetUser {"id":"7"}) (\#(difference))"#)
    }

    /// The other way round: a number where the match expects a string with its text.
    @Test func aNumberAgainstAStringSaysTheTypesDiffer() async throws {
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]), answer: .status(200))

        let request = GraphQLRequests.post(#"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":7}}"#)
        let message = await failure(request)
        #expect(
            message.split(separator: "\n")[1]
                == #"Nearest: GraphQL operation GetUser with variables {"id":"7"} (variables.id 7 ≠ "7" (a number, not a string; register ["id": 7]))"#
        )
    }

    @Test func aRequestWithNoOperationIsNotNearAGraphQLMatch() async throws {
        mocks.register(.graphQL("GetUser"), answer: .status(200))
        mocks.register(.url("https://api.example.com/items").method("POST"), answer: .status(200))

        let message = await failure(URLRequest(url: URL(string: "https://api.example.com/items")!))
        #expect(message.split(separator: "\n")[1] == "Nearest: POST https://api.example.com/items (method GET ≠ POST)")
    }

    @Test func anOperationWithNothingNearIsToldHowToRegisterIt() async throws {
        // As the trait's and the base class's registries do from the start (a bare registry reads
        // GraphQL once a GraphQL handler is registered on it).
        mocks.readsGraphQL()
        mocks.register("https://api.example.com/health", answer: .status(200))

        let message = await failure(getUser("8"))
        #expect(
            message.split(separator: "\n").last
                == """
                Fix: register a handler for this operation, e.g. register(.graphQL("GetUser")) { request in \
                .graphQL(data: "{}", for: request) }.
                """)
    }

    /// A body a GraphQL handler's endpoint gets that carries no operation, and what the report says
    /// of it: why there is none, and what to change in the client.
    enum BrokenBody: String, CaseIterable, Sendable {
        case cutOff, noDocument, applicationGraphQL, severalOperationsUnnamed

        var request: URLRequest {
            switch self {
            case .cutOff:
                GraphQLRequests.post(#"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"7""#)
            case .noDocument:
                GraphQLRequests.post(#"{"hello":"world"}"#)
            case .applicationGraphQL:
                GraphQLRequests.post(
                    GraphQLRequests.getUserDocument, headers: ["Content-Type": "application/graphql"])
            case .severalOperationsUnnamed:
                GraphQLRequests.post(#"{"query":"query GetUser { user { id } } query GetPosts { posts { id } }"}"#)
            }
        }

        /// Why the request carries no operation.
        var reason: String {
            switch self {
            case .cutOff: "its body is cut off: it ends after 97 bytes, inside its JSON"
            case .noDocument:
                "it sends no query (the document) and no extensions.persistedQuery.sha256Hash (a persisted "
                    + "query's hash)"
            case .applicationGraphQL:
                "its body is a GraphQL document sent as application/graphql, which GraphQL over HTTP does not "
                    + "define"
            case .severalOperationsUnnamed:
                "its document defines 2 operations (query GetUser, query GetPosts) and the request names none"
            }
        }

        /// What to change in the client.
        var change: String {
            switch self {
            case .cutOff: "Change the client's body: send the whole of it."
            case .noDocument: "Change the client's body: send one of them."
            case .applicationGraphQL:
                #"Change the client's body: send {"query": "…"} as application/json."#
            case .severalOperationsUnnamed: "Change the client's request: send operationName to say which one to run."
            }
        }
    }

    @Test(arguments: BrokenBody.allCases, [false, true])
    func aBrokenBodyIsReportedWithWhyItCarriesNoOperation(_ body: BrokenBody, atTheEndpoint: Bool) async throws {
        let match = RequestMatch.graphQL("GetUser")
        let line = #line + 1
        mocks.register(atTheEndpoint ? match.at(GraphQLRequests.endpoint) : match, answer: .status(200))

        let message = await failure(body.request)
        let shown = "GraphQL operation GetUser" + (atTheEndpoint ? " at \(GraphQLRequests.endpoint)" : "")
        #expect(
            message.split(separator: "\n").map(String.init) == [
                "MockNetwork: no handler for POST https://api.example.com/graphql.",
                "Nearest: \(shown) (no GraphQL operation: \(body.reason))",
                "Registered (1):",
                "  \(shown)",
                "Fix: the request carries no GraphQL operation (\(body.reason)), so the GraphQL handler "
                    + "registered at \(#fileID):\(line) cannot match it. \(body.change)",
            ])
    }

    /// A handler of the endpoint's URL that fails as many rules is not nearer than the GraphQL one.
    @Test func aBrokenBodyIsNearerTheGraphQLHandlerThanAnotherAtItsURL() async throws {
        mocks.register(.url(GraphQLRequests.endpoint).method("GET"), answer: .status(200))
        mocks.register(.graphQL("GetUser"), answer: .status(200))

        let message = await failure(BrokenBody.noDocument.request)
        #expect(
            message.split(separator: "\n")[1]
                == "Nearest: GraphQL operation GetUser (no GraphQL operation: \(BrokenBody.noDocument.reason))")
    }

    /// A request that does not try GraphQL (no `graphql` in its path or `Content-Type`) is told about
    /// its URL, even when the nearest handler is a GraphQL one at any URL.
    @Test func aRequestThatIsNoGraphQLIsToldAboutItsURL() async throws {
        mocks.register(.graphQL("GetUser"), answer: .status(200))

        let message = await failure(URLRequest(url: URL(string: "https://api.example.com/items")!))
        #expect(message.split(separator: "\n").last?.hasPrefix("Fix: register a handler for this URL") == true)
    }

    @Test func checksAfterTheFactTakeGraphQLMatches() async throws {
        mocks.register(.graphQL(type: .query), answer: .status(200))
        _ = try await mocks.session.data(for: getUser("7"))
        _ = try await mocks.session.data(for: getUser("8"))

        #expect(mocks.requests(matching: .graphQL("GetUser")).count == 2)
        #expect(mocks.requests(matching: .graphQL("GetUser", variables: ["id": "8"])).count == 1)
        #expect(mocks.requests(matching: .graphQL(type: .mutation)).isEmpty)
        #expect(
            mocks.countFailure(.graphQL("GetUser", variables: ["id": "9"]), .exactly(1)) == """
                MockNetwork: expected exactly 1 operation matching GraphQL operation GetUser with variables {"id":"9"}, got 0.
                Requested (2): POST https://api.example.com/graphql (query GetUser {"id":"7"}); \
                POST https://api.example.com/graphql (query GetUser {"id":"8"})
                Nearest: POST https://api.example.com/graphql (query GetUser {"id":"7"}) (variables.id "7" ≠ "9")
                """)
    }

    @Test func handlersNeverCalledAndExpectedCallsNameTheOperation() async throws {
        mocks.requiresEveryHandlerCalled = true
        mocks.register(.graphQL("GetUser"), expectedCalls: 2, answer: .status(200))
        mocks.register(.graphQL(type: .mutation), answer: .status(200))
        _ = try await mocks.session.data(for: getUser("7"))

        let messages = mocks.settledFailures().map { $0.message.components(separatedBy: ",")[0] }
        #expect(messages.count == 2)
        #expect(messages.contains { $0.contains("GraphQL mutation (any name)") })
        #expect(messages.contains("MockNetwork: expected 2 calls to GraphQL operation GetUser"))
    }
}

/// Where a registry learns to read GraphQL in its reports.
@Suite struct GraphQLReportReadingTests {
    private func unmatchedMessage(_ mocks: MockRegistry) async throws -> String {
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/graphql")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"query": "query GetUser { user { id } }"}"#.utf8)
        _ = try? await mocks.session.data(for: request)
        return mocks.takeFailures().first?.message ?? ""
    }

    @Test func aBareRegistryWithNoGraphQLHandlerReportsTheURL() async throws {
        let mocks = MockRegistry()
        let message = try await unmatchedMessage(mocks)
        #expect(message.hasPrefix("MockNetwork: no handler for POST https://api.example.com/graphql."))
    }

    @Test func aBareRegistryReadsGraphQLOnceAGraphQLHandlerIsRegistered() async throws {
        let mocks = MockRegistry()
        mocks.register(.graphQL("GetPosts"), answer: .status(200))
        let message = try await unmatchedMessage(mocks)
        #expect(message.hasPrefix("MockNetwork: no handler for POST https://api.example.com/graphql (query GetUser)."))
    }

    @Test(.mockNetwork) func theTraitsRegistryReadsGraphQLFromTheStart() async throws {
        let message = try await unmatchedMessage(MockRegistry.current)
        #expect(message.hasPrefix("MockNetwork: no handler for POST https://api.example.com/graphql (query GetUser)."))
        #expect(message.hasSuffix(#"{ request in .graphQL(data: "{}", for: request) }."#))
    }
}

/// The code an unmatched report suggests compiles as it is written, and answers the request.
@Suite struct ReportedFixesCompileTests {
    @Test func theGraphQLFixIsCodeThatAnswersTheOperation() async throws {
        let mocks = MockRegistry()
        mocks.readsGraphQL()
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/graphql")))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"query": "query GetUser { user { id } }"}"#.utf8)
        _ = try? await mocks.session.data(for: request)
        let message = mocks.takeFailures().first?.message ?? ""
        let suggested = #"register(.graphQL("GetUser")) { request in .graphQL(data: "{}", for: request) }"#
        #expect(message.contains(suggested))
        // The suggestion, as code:
        mocks.register(.graphQL("GetUser")) { request in .graphQL(data: "{}", for: request) }
        let (data, _) = try await mocks.session.data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == #"{"data":{}}"#)
    }

    @Test func theURLFixIsCodeThatAnswersTheRequest() async throws {
        let mocks = MockRegistry()
        let url = try #require(URL(string: "https://api.example.com/health"))
        _ = try? await mocks.session.data(from: url)
        let message = mocks.takeFailures().first?.message ?? ""
        #expect(message.contains(#"register("https://api.example.com/health") { _ in .status(200) }"#))
        // The suggestion, as code:
        mocks.register("https://api.example.com/health") { _ in .status(200) }
        let (_, response) = try await mocks.session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
    }
}
