import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// Matching by GraphQL operation: name, type and variables, at any URL or one endpoint, the most
/// specific winning; handlers that read the operation.
@Suite struct GraphQLMatchingTests {
    private let mocks = MockRegistry()

    /// The body `request` gets back, as text.
    private func answer(_ request: URLRequest) async throws -> String {
        String(decoding: try await mocks.session.data(for: request).0, as: UTF8.self)
    }

    /// `GetUser` as Apollo iOS sends it: its `ID!` variable a string.
    private func getUser(_ id: String) -> URLRequest {
        GraphQLRequests.apollo(
            name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash,
            body:
                #"{"extensions":{\#(GraphQLRequests.clientLibrary)},"operationName":"GetUser","query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"\#(id)"}}"#
        )
    }

    /// An operation with an `Int!` variable, which a client sends as a JSON number.
    private func getFeed(first: Int, extra: String = "") -> URLRequest {
        GraphQLRequests.apollo(
            name: "GetFeed", type: "query",
            operationID: "0662766823d03a415bee55756a59f7824f5c32717f19918e9c7367a9986c8847",
            body:
                #"{"extensions":{\#(GraphQLRequests.clientLibrary)},"operationName":"GetFeed","query":"query GetFeed($first: Int!) { feed(first: $first) { __typename id } }","variables":{"first":\#(first)\#(extra)}}"#
        )
    }

    private let addUser = GraphQLRequests.apollo(
        name: "AddUser", type: "mutation", operationID: GraphQLRequests.addUserHash,
        body:
            #"{"extensions":{\#(GraphQLRequests.clientLibrary)},"operationName":"AddUser","query":"\#(GraphQLRequests.addUserDocument)","variables":{"name":"Ada"}}"#
    )

    @Test func theMostSpecificOperationMatchWins() async throws {
        mocks.register(.graphQL(type: .query), answer: .text("any query"))
        mocks.register(.graphQL("GetUser"), answer: .text("GetUser"))
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]), answer: .text("GetUser 7"))
        mocks.register(.graphQL(type: .mutation), answer: .text("a mutation"))
        mocks.register(.url(GraphQLRequests.endpoint), method: "POST", answer: .text("the URL"))

        #expect(try await answer(getUser("7")) == "GetUser 7")
        #expect(try await answer(getUser("8")) == "GetUser")
        #expect(try await answer(addUser) == "a mutation")
        #expect(try await answer(getFeed(first: 10)) == "any query")
        let notGraphQL = GraphQLRequests.post(#"{"hello":"world"}"#)
        #expect(try await answer(notGraphQL) == "the URL")
        #expect(mocks.failures.isEmpty)
    }

    @Test func variablesCompareAsJSONAndAllVariablesAsksForExactlyThose() async throws {
        mocks.register(.graphQL("GetFeed", variables: ["first": 10.0]), answer: .text("some"))
        mocks.register(.graphQL("GetFeed", variables: ["first": 10], allVariables: true), answer: .text("exactly"))

        #expect(try await answer(getFeed(first: 10)) == "exactly")
        #expect(try await answer(getFeed(first: 10, extra: #","locale":"en""#)) == "some")
    }

    @Test func anEndpointNarrowsTheMatchAndTakesTheGETForm() async throws {
        mocks.register(.graphQL("GetUser"), answer: .text("anywhere"))
        mocks.register(.graphQL("GetUser").at(GraphQLRequests.endpoint), answer: .text("at the endpoint"))

        #expect(try await answer(getUser("7")) == "at the endpoint")
        let get = GraphQLRequests.apolloGET(
            [
                ("extensions", #"{\#(GraphQLRequests.clientLibrary)}"#), ("operationName", "GetUser"),
                ("query", GraphQLRequests.getUserDocument), ("variables", #"{"id":"7"}"#),
            ],
            headers: GraphQLRequests.apolloHeaders(
                name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash))
        #expect(try await answer(get) == "at the endpoint")
        var elsewhere = getUser("7")
        elsewhere.url = URL(string: "https://other.example.com/graphql")
        #expect(try await answer(elsewhere) == "anywhere")
    }

    @Test func handlersReadTheOperation() async throws {
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = operation.variables["id"]?.description ?? "null"
            return .graphQL(data: #"{"user": {"id": \#(id)}}"#, for: request)
        }
        mocks.register(.graphQL(type: .mutation)) { request, operation async throws in
            .graphQL(data: #"{"\#(operation.name ?? "")": \#(operation.variables["name"] ?? nil)}"#, for: request)
        }

        #expect(try await answer(getUser("7")) == #"{"data":{"user": {"id": "7"}}}"#)
        #expect(try await answer(addUser) == #"{"data":{"AddUser": "Ada"}}"#)
        #expect(mocks.failures.isEmpty)
    }

    @Test func aTemplateHandlerStillPicksTheParametersForm() async throws {
        mocks.register(.url("https://api.example.com/users/{id}")) { _, parameters in
            .text(parameters["id"] ?? "")
        }
        mocks.register(.graphQL("GetUser")) { _ in .text("either") }

        #expect(try await answer(URLRequest(url: URL(string: "https://api.example.com/users/7")!)) == "7")
        #expect(try await answer(getUser("7")) == "either")
    }

    @Test func aThousandOperationsEachAnswerTheirOwn() async throws {
        for index in 0..<1_000 {
            let match = RequestMatch.graphQL("Op\(index)")
            mocks.register(
                index.isMultiple(of: 2) ? match.at(GraphQLRequests.endpoint) : match, answer: .text("\(index)"))
        }
        for index in [0, 1, 500, 998, 999] {
            let request = GraphQLRequests.post(#"{"query":"query Op\#(index) { a }"}"#)
            #expect(try await answer(request) == "\(index)")
        }
        #expect(mocks.failures.isEmpty)
    }

    @Test func registeringAgainReplacesAndRemovingTheEndpointRemovesItsOperations() async throws {
        mocks.register(.graphQL("GetUser"), answer: .text("first"))
        mocks.register(.graphQL("GetUser"), answer: .text("anywhere"))
        mocks.register(.graphQL("GetUser").at(GraphQLRequests.endpoint), answer: .text("at the endpoint"))
        #expect(try await answer(getUser("7")) == "at the endpoint")

        mocks.remove(GraphQLRequests.endpoint.absoluteString)
        #expect(try await answer(getUser("7")) == "anywhere")
        #expect(mocks.failures.isEmpty)
    }

    /// A search's free text in a field named `query` is no GraphQL document (an operation needs a
    /// selection set, `{ … }`): an any-URL GraphQL handler does not take the request, the URL's own
    /// handler does.
    @Test func freeTextInAQueryFieldIsNoOperation() async throws {
        mocks.register(.graphQL(type: .subscription), answer: .text("a subscription"))
        mocks.register(.url("https://api.example.com/search").method("POST"), answer: .text("search results"))
        var search = GraphQLRequests.post(#"{"query": "subscription plans", "hitsPerPage": 20}"#)
        search.url = URL(string: "https://api.example.com/search")

        let answered = try await answer(search)
        #expect(answered == "search results")
        #expect(GraphQLOperation(search) == nil)
        #expect(
            throws: GraphQLFormatError.notGraphQL(
                "POST https://api.example.com/search is no GraphQL request: its query, \"subscription plans\", "
                    + "is no GraphQL document: subscription plans has no selection set ({ … }). Send a document "
                    + "such as query GetUser { user { id } }.")
        ) { try GraphQLOperation.operations(in: search) }
        #expect(mocks.failures.isEmpty)
    }

    @Test func theMatchReadsAsItIsWritten() {
        #expect(RequestMatch.graphQL("GetUser", type: .query).description == "GraphQL query GetUser")
        #expect(
            RequestMatch.graphQL("GetUser", variables: ["id": "7"]).at("https://api.example.com/graphql").description
                == #"GraphQL operation GetUser with variables {"id":"7"} at https://api.example.com/graphql"#)
        #expect(
            RequestMatch.graphQL(type: .mutation, allVariables: true).description
                == "GraphQL mutation (any name) with no variables")
    }
}
