import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A batch (a JSON array of operations): each operation answered by its own handler, the answers
/// joined in order into a JSON array; the checks after the fact see each operation in it.
@Suite struct GraphQLBatchTests {
    private let mocks = MockRegistry()

    private let batch = GraphQLRequests.post(
        #"[{"query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":7}},"#
            + #"{"query":"mutation AddUser { addUser { id } }"},"#
            + #"{"query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":8}}]"#)

    @Test func eachOperationIsAnsweredByItsOwnHandlerInOrder() async throws {
        let users = mocks.register(.graphQL("GetUser")) { request, operation in
            .graphQL(data: #"{"user": {"id": "\#(operation.variables["id"] ?? nil)"}}"#, for: request)
        }
        mocks.register(.graphQL(type: .mutation)) { request async throws in
            .graphQL(data: #"{"addUser": {"id": "9"}}"#, for: request)
        }

        let (data, response) = try await mocks.session.data(for: batch)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"[{"data":{"user": {"id": "7"}}},{"data":{"addUser": {"id": "9"}}},{"data":{"user": {"id": "8"}}}]"#
        )
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
                == "application/json; charset=utf-8")
        #expect(users.callCount == 2)
        #expect(mocks.requests.count == 1)
        #expect(mocks.failures.isEmpty)
    }

    @Test func aHandlerForTheWholeBatchAnswersIt() async throws {
        mocks.register(.graphQL("GetUser"), answer: .text("one"))
        mocks.register(.url(GraphQLRequests.endpoint), method: "POST", answer: .json("[]"))

        let (data, _) = try await mocks.session.data(for: batch)
        #expect(String(decoding: data, as: UTF8.self) == "[]")
    }

    /// A default for the endpoint (`registerDefaults`, ranked below the test's handlers) answers only
    /// the operations of a batch that no handler of the test matches: the batch goes operation by
    /// operation, as it does with no default, and the default answers it whole only when no handler
    /// of the test matches any of its operations.
    @Test func aDefaultAnswersOnlyTheOperationsNoHandlerOfTheTestMatches() async throws {
        mocks.registerDefaults { mocks in
            mocks.register(
                .url(GraphQLRequests.endpoint), method: "POST",
                answer: .graphQL(data: #"{"default": true}"#))
        }
        let users = mocks.register(.graphQL("GetUser"), answer: .graphQL(data: #"{"user": {"id": "7"}}"#))
        let getUser = #"{"query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":"7"}}"#
        let addUser = #"{"query":"mutation AddUser { addUser { id } }"}"#

        let (twice, _) = try await mocks.session.data(for: GraphQLRequests.post("[\(getUser),\(getUser)]"))
        #expect(
            String(decoding: twice, as: UTF8.self)
                == #"[{"data":{"user": {"id": "7"}}},{"data":{"user": {"id": "7"}}}]"#)
        #expect(users.callCount == 2)
        let (mixed, _) = try await mocks.session.data(for: GraphQLRequests.post("[\(getUser),\(addUser)]"))
        #expect(
            String(decoding: mixed, as: UTF8.self) == #"[{"data":{"user": {"id": "7"}}},{"data":{"default": true}}]"#)
        #expect(users.callCount == 3)
        let (none, _) = try await mocks.session.data(for: GraphQLRequests.post("[\(addUser),\(addUser)]"))
        #expect(String(decoding: none, as: UTF8.self) == #"{"data":{"default": true}}"#)
        #expect(mocks.failures.isEmpty)
    }

    @Test func anOperationNoHandlerAnswersFailsTheBatchWithItsReport() async throws {
        mocks.register(.graphQL("GetUser"), answer: .graphQL(data: "{}"))

        await #expect(throws: URLError.self) { try await mocks.session.data(for: batch) }
        #expect(
            mocks.failures.map { $0.message.split(separator: "\n")[0] } == [
                "MockNetwork: no handler for POST https://api.example.com/graphql (mutation AddUser)."
            ])
    }

    private let batchShown =
        #"POST https://api.example.com/graphql (batch: query GetUser {"id":7}, mutation AddUser, "#
        + #"query GetUser {"id":8})"#

    /// Answers `batch`, and then one `GetUser` alone.
    private func sendTheBatchThenOneAlone() async throws {
        mocks.register(.graphQL("GetUser"), answer: .graphQL(data: "{}"))
        mocks.register(.graphQL(type: .mutation), answer: .graphQL(data: "{}"))
        _ = try await mocks.session.data(for: batch)
        _ = try await mocks.session.data(for: GraphQLRequests.post(#"{"query":"query GetUser { user { id } }"}"#))
        #expect(mocks.failures.isEmpty)
    }

    @Test func requestsMatchingAGraphQLMatchIncludeABatchThatCarriedTheOperation() async throws {
        try await sendTheBatchThenOneAlone()

        let users = mocks.requests(matching: .graphQL("GetUser"))
        #expect(users.map(\.body) == [batch.httpBody, Data(#"{"query":"query GetUser { user { id } }"}"#.utf8)])
        #expect(mocks.requests(matching: .graphQL("GetUser", variables: ["id": 8])).map(\.body) == [batch.httpBody])
        #expect(mocks.requests(matching: .graphQL("AddUser", type: .mutation)).map(\.body) == [batch.httpBody])
        #expect(mocks.requests(matching: .graphQL("GetUser").at(GraphQLRequests.endpoint)).count == 2)
        #expect(mocks.requests(matching: .graphQL("GetUser", variables: ["id": 9])).isEmpty)
        #expect(mocks.requests(matching: .graphQL("AddUser", type: .query)).isEmpty)
        #expect(mocks.requests(matching: .graphQL("GetUser").at("https://other.example.com/graphql")).isEmpty)
        #expect(mocks.requests(matching: .graphQL("GetUser").method("GET")).isEmpty)
    }

    @Test func expectCountsTheOperationsABatchCarried() async throws {
        try await sendTheBatchThenOneAlone()

        mocks.expect(.graphQL("GetUser"), count: .exactly(3))  // two in the batch, one alone
        mocks.expect(.graphQL("GetUser", variables: ["id": 8]), count: .exactly(1))
        mocks.expect(.graphQL(type: .mutation), count: .exactly(1))
        mocks.expect(.graphQL("GetPosts"), count: .never)
        #expect(
            mocks.countFailure(.graphQL("GetUser"), .exactly(1)) == """
                MockNetwork: expected exactly 1 operation matching GraphQL operation GetUser, got 3.
                Matching: \(batchShown); POST https://api.example.com/graphql (query GetUser)
                Requested (2): \(batchShown); POST https://api.example.com/graphql (query GetUser)
                """)
        #expect(
            mocks.countFailure(.graphQL("GetPosts"), .atLeast(1)) == """
                MockNetwork: expected at least 1 operation matching GraphQL operation GetPosts, got 0.
                Requested (2): \(batchShown); POST https://api.example.com/graphql (query GetUser)
                Nearest: \(batchShown) (operation 1 of the batch: operation name GetUser ≠ GetPosts)
                """)
    }

    @Test func nextRequestReturnsTheBatchThatCarriedTheOperation() async throws {
        try await sendTheBatchThenOneAlone()

        let sent = try await mocks.nextRequest(matching: .graphQL(type: .mutation), timeout: 0)
        #expect(sent.body == batch.httpBody)
        let next = try await mocks.nextRequest(matching: .graphQL("GetUser"), timeout: 0)
        #expect(next.body == Data(#"{"query":"query GetUser { user { id } }"}"#.utf8))
    }

    @Test func aHandlerThatAnsweredOperationsOfABatchCountsACallForEach() async throws {
        mocks.requiresEveryHandlerCalled = true
        let users = mocks.register(.graphQL("GetUser"), expectedCalls: 1, answer: .graphQL(data: "{}"))
        let adds = mocks.register(.graphQL(type: .mutation), answer: .graphQL(data: "{}"))
        mocks.register(.graphQL("GetPosts"), answer: .graphQL(data: "{}"))
        _ = try await mocks.session.data(for: batch)

        #expect(users.callCount == 2)
        #expect(adds.callCount == 1)
        #expect(
            mocks.settledFailures().map(\.message) == [
                "MockNetwork: the handler for GraphQL operation GetPosts was never called, and this test requires "
                    + "every handler to be (requiresEveryHandlerCalled). Check that the code under test makes this "
                    + "request, or remove the handler.",
                "MockNetwork: expected 1 call to GraphQL operation GetUser, got 2. Check what the code under test "
                    + "requests, or change expectedCalls.",
            ])
    }
}
