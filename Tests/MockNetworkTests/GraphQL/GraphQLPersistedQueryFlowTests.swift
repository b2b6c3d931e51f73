import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private typealias R = GraphQLRequests

/// Apollo iOS 1.25's automatic persisted queries, played against a registered operation that
/// answers as a server does: the hash alone first (`PersistedQueryNotFound` while the server does
/// not know it), the retry with the document, then the hash alone as a `GET` once it is known.
@Suite struct GraphQLPersistedQueryFlowTests {
    private let mocks = MockRegistry()
    private let persisted = #""persistedQuery":{"sha256Hash":"\#(R.getUserHash)","version":1}"#
    private let headers = R.apolloHeaders(name: "GetUser", type: "query").merging([
        "X-APOLLO-OPERATION-ID": R.getUserHash
    ]) { $1 }

    private func answer(_ request: URLRequest) async throws -> (Int, String) {
        let (data, response) = try await mocks.session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func hashThenRetryWithTheDocumentThenGET() async throws {
        let known = Shared<Set<String>>([])
        let route = mocks.register(.graphQL("GetUser", type: .query, variables: ["id": 7])) { request, operation in
            let hash = try #require(operation.persistedQueryHash)
            if let document = operation.document {
                #expect(document == R.getUserDocument)
                known.update { _ = $0.insert(hash) }
            } else if !known.current.contains(hash) {
                return try .graphQL(
                    errors: [
                        .init(message: "PersistedQueryNotFound", extensions: ["code": "PERSISTED_QUERY_NOT_FOUND"])
                    ],
                    for: request)
            }
            return try .graphQL(data: #"{"user": {"__typename": "User", "id": "7", "name": "Ada"}}"#, for: request)
        }
        let data = #"{"data":{"user": {"__typename": "User", "id": "7", "name": "Ada"}}}"#

        let first = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","variables":{"id":7}}"#,
            headers: headers)
        #expect(
            try await answer(first)
                == (
                    200,
                    #"{"errors":[{"extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"},"message":"PersistedQueryNotFound"}]}"#
                ))

        let retry = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","query":"\#(R.getUserDocument)","variables":{"id":7}}"#,
            headers: headers)
        #expect(try await answer(retry) == (200, data))

        let get = R.apolloGET(
            [
                ("extensions", #"{\#(R.clientLibrary),\#(persisted)}"#), ("operationName", "GetUser"),
                ("variables", #"{"id":7}"#),
            ], headers: headers)
        #expect(try await answer(get) == (200, data))

        #expect(route.callCount == 3)
        #expect(mocks.requests(matching: .graphQL("GetUser").at(R.endpoint)).map(\.method) == ["POST", "POST", "GET"])
        #expect(mocks.requests.map { $0.graphQLOperation?.document == nil } == [true, false, true])
        #expect(mocks.failures.isEmpty)
    }
}
