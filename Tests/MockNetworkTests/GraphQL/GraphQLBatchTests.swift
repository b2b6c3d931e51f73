import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A batch (a JSON array of operations): each operation answered by its own handler, the answers
/// joined in order into a JSON array.
@Suite struct GraphQLBatchTests {
    private let mocks = MockRegistry()

    private let batch = GraphQLRequests.post(
        #"[{"query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":7}},"#
            + #"{"query":"mutation AddUser { addUser { id } }"},"#
            + #"{"query":"query GetUser($id: ID!) { user(id: $id) { id } }","variables":{"id":8}}]"#)

    @Test func eachOperationIsAnsweredByItsOwnHandlerInOrder() async throws {
        let users = mocks.register(.graphQL("GetUser")) { request, operation in
            try .graphQL(data: #"{"user": {"id": "\#(operation.variables["id"] ?? nil)"}}"#, for: request)
        }
        mocks.register(.graphQL(type: .mutation)) { request, _ async throws in
            try .graphQL(data: #"{"addUser": {"id": "9"}}"#, for: request)
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
        mocks.register(.graphQL("GetUser"), answer: try .text("one"))
        mocks.register(GraphQLRequests.endpoint.absoluteString, method: "POST", answer: try .json("[]"))

        let (data, _) = try await mocks.session.data(for: batch)
        #expect(String(decoding: data, as: UTF8.self) == "[]")
    }

    @Test func anOperationNoHandlerAnswersFailsTheBatchWithItsReport() async throws {
        mocks.register(.graphQL("GetUser"), answer: try .graphQL(data: "{}"))

        await #expect(throws: URLError.self) { try await mocks.session.data(for: batch) }
        #expect(
            mocks.failures.map { $0.message.split(separator: "\n")[0] } == [
                "MockNetwork: no handler for POST https://api.example.com/graphql (mutation AddUser)."
            ])
    }
}
