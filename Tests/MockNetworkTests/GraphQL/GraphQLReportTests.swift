import Foundation
import MockNetwork
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
        mocks.register(.graphQL("GetPosts"), answer: try .status(200))
        let line = #line + 1
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]), answer: try .status(200))
        mocks.register("https://api.example.com/health", answer: try .status(200))

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
        mocks.register(.graphQL("GetUser", variables: ["id": 7]), answer: try .status(200))

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
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]), answer: try .status(200))

        let request = GraphQLRequests.post(#"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":7}}"#)
        let message = await failure(request)
        #expect(
            message.split(separator: "\n")[1]
                == #"Nearest: GraphQL operation GetUser with variables {"id":"7"} (variables.id 7 ≠ "7" (a number, not a string; register ["id": 7]))"#
        )
    }

    @Test func aRequestWithNoOperationIsNotNearAGraphQLMatch() async throws {
        mocks.register(.graphQL("GetUser"), answer: try .status(200))
        mocks.register(.url("https://api.example.com/items").method("POST"), answer: try .status(200))

        let message = await failure(URLRequest(url: URL(string: "https://api.example.com/items")!))
        #expect(message.split(separator: "\n")[1] == "Nearest: POST https://api.example.com/items (method GET ≠ POST)")
    }

    @Test func anOperationWithNothingNearIsToldHowToRegisterIt() async throws {
        mocks.register("https://api.example.com/health", answer: try .status(200))

        let message = await failure(getUser("8"))
        #expect(
            message.split(separator: "\n").last
                == """
                Fix: register a handler for this operation, e.g. register(.graphQL("GetUser")) { request, operation in \
                try .graphQL(data: "{}", for: request) }.
                """)
    }

    @Test func checksAfterTheFactTakeGraphQLMatches() async throws {
        mocks.register(.graphQL(type: .query), answer: try .status(200))
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
        mocks.register(.graphQL("GetUser"), expectedCalls: 2, answer: try .status(200))
        mocks.register(.graphQL(type: .mutation), answer: try .status(200))
        _ = try await mocks.session.data(for: getUser("7"))

        let messages = mocks.settledFailures().map { $0.message.components(separatedBy: ",")[0] }
        #expect(messages.count == 2)
        #expect(messages.contains { $0.contains("GraphQL mutation (any name)") })
        #expect(messages.contains("MockNetwork: expected 2 calls to GraphQL operation GetUser"))
    }
}
