import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private typealias R = GraphQLRequests

/// Apollo iOS 1.25.7's automatic persisted queries, its requests as captured (`GraphQLRequests`),
/// played against a registered operation that answers as a server does: the hash alone first
/// (`PersistedQueryNotFound` while the server does not know it), then the retry with the document.
@Suite struct GraphQLPersistedQueryFlowTests {
    private let mocks = MockRegistry()
    private let persisted = R.persistedQuery(R.getUserHash)
    private let headers = R.apolloHeaders(name: "GetUser", type: "query", operationID: R.getUserHash)

    private func answer(_ request: URLRequest) async throws -> (Int, String) {
        let (data, response) = try await mocks.session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    private let data = #"{"data":{"user": {"__typename": "User", "id": "7", "name": "Ada"}}}"#
    private let notFound =
        #"{"errors":[{"extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"},"message":"PersistedQueryNotFound"}]}"#

    /// A GraphQL server with automatic persisted queries, as a registered operation (`GetUser` with
    /// `"id": "7"` unless given another): a hash it does not know gets `PersistedQueryNotFound`; a
    /// document with its hash makes the hash known.
    private func registerServer(
        _ match: RequestMatch = .graphQL("GetUser", type: .query, variables: ["id": "7"]),
        document expected: String = R.getUserDocument,
        hash expectedHash: String = R.getUserHash,
        data: String = #"{"user": {"__typename": "User", "id": "7", "name": "Ada"}}"#
    ) -> MockRoute {
        let known = Shared<Set<String>>([])
        return mocks.register(match) { request, operation in
            let hash = try #require(operation.persistedQueryHash)
            #expect(hash == expectedHash)
            if let document = operation.document {
                #expect(document == expected)
                known.update { _ = $0.insert(hash) }
            } else if !known.current.contains(hash) {
                return .graphQL(
                    errors: [
                        .init(message: "PersistedQueryNotFound", extensions: ["code": "PERSISTED_QUERY_NOT_FOUND"])
                    ],
                    for: request)
            }
            return .graphQL(data: data, for: request)
        }
    }

    /// By default both are `POST`s; once the hash is known, the hash alone is answered (as a `GET`
    /// here, as a client with `useGETForQueries` sends it).
    @Test func hashThenRetryWithTheDocumentThenGET() async throws {
        let route = registerServer()

        let first = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","variables":{"id":"7"}}"#,
            headers: headers)
        #expect(try await answer(first) == (200, notFound))

        let retry = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","query":"\#(R.getUserDocument)","variables":{"id":"7"}}"#,
            headers: headers)
        #expect(try await answer(retry) == (200, data))

        let get = R.apolloGET(
            [
                ("extensions", #"{\#(R.clientLibrary),\#(persisted)}"#), ("operationName", "GetUser"),
                ("variables", #"{"id":"7"}"#),
            ], headers: headers)
        #expect(try await answer(get) == (200, data))

        #expect(route.callCount == 3)
        #expect(mocks.requests(matching: .graphQL("GetUser").at(R.endpoint)).map(\.method) == ["POST", "POST", "GET"])
        #expect(mocks.requests.map { $0.graphQLOperation?.document == nil } == [true, false, true])
        #expect(mocks.failures.isEmpty)
    }

    /// With `useGETForPersistedQueryRetry` (with or without `useGETForQueries`), both requests are
    /// `GET`s: the hash alone in `extensions`, then, after `PersistedQueryNotFound`, the same with
    /// `query` added.
    @Test func hashThenRetryWithTheDocumentBothAsGET() async throws {
        let route = registerServer()
        let items = [
            ("extensions", #"{\#(R.clientLibrary),\#(persisted)}"#), ("operationName", "GetUser"),
            ("variables", #"{"id":"7"}"#),
        ]

        let first = R.apolloGET(items, headers: headers)
        #expect(first.httpMethod == "GET")
        #expect(first.url?.query?.contains("query=") == false)
        #expect(try await answer(first) == (200, notFound))

        let retry = R.apolloGET(items + [("query", R.getUserDocument)], headers: headers)
        #expect(try await answer(retry) == (200, data))

        #expect(route.callCount == 2)
        let reads = mocks.requests(matching: .graphQL("GetUser", variables: ["id": "7"]).at(R.endpoint))
        #expect(reads.map(\.method) == ["GET", "GET"])
        #expect(reads.map { $0.graphQLOperation?.document } == [nil, R.getUserDocument])
        #expect(reads.map { $0.graphQLOperation?.persistedQueryHash } == [R.getUserHash, R.getUserHash])
        #expect(mocks.failures.isEmpty)
    }

    /// With `useGETForQueries` alone, the hash alone is a `GET` and, after `PersistedQueryNotFound`,
    /// the retry with the document a `POST`.
    @Test func hashAsGETThenRetryWithTheDocumentAsPOST() async throws {
        let route = registerServer()

        let first = R.apolloGET(
            [
                ("extensions", #"{\#(R.clientLibrary),\#(persisted)}"#), ("operationName", "GetUser"),
                ("variables", #"{"id":"7"}"#),
            ], headers: headers)
        #expect(try await answer(first) == (200, notFound))

        let retry = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","query":"\#(R.getUserDocument)","variables":{"id":"7"}}"#,
            headers: headers)
        #expect(retry.httpBody?.count == 308)  // the captured Content-Length
        #expect(try await answer(retry) == (200, data))

        #expect(route.callCount == 2)
        let reads = mocks.requests(matching: .graphQL("GetUser", type: .query, variables: ["id": "7"]).at(R.endpoint))
        #expect(reads.map(\.method) == ["GET", "POST"])
        #expect(reads.map { $0.graphQLOperation?.document } == [nil, R.getUserDocument])
        #expect(reads.map { $0.graphQLOperation?.persistedQueryHash } == [R.getUserHash, R.getUserHash])
        #expect(mocks.failures.isEmpty)
    }

    /// A mutation's persisted query is a `POST` then a `POST`, whatever the `GET` flags; the hash alone
    /// says it is a mutation only by Apollo's `X-APOLLO-OPERATION-TYPE` header.
    @Test func aMutationsHashThenRetryWithTheDocumentBothAsPOST() async throws {
        let route = registerServer(
            .graphQL("AddUser", type: .mutation, variables: ["name": "Ada"]), document: R.addUserDocument,
            hash: R.addUserHash, data: #"{"addUser": {"__typename": "User", "id": "42"}}"#)
        let headers = R.apolloHeaders(name: "AddUser", type: "mutation", operationID: R.addUserHash)
        let persisted = R.persistedQuery(R.addUserHash)

        let first = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"AddUser","variables":{"name":"Ada"}}"#,
            headers: headers)
        #expect(first.httpBody?.count == 237)  // the captured Content-Length
        #expect(try await answer(first) == (200, notFound))

        let retry = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"AddUser","query":"\#(R.addUserDocument)","variables":{"name":"Ada"}}"#,
            headers: headers)
        #expect(retry.httpBody?.count == 323)
        #expect(try await answer(retry) == (200, #"{"data":{"addUser": {"__typename": "User", "id": "42"}}}"#))

        #expect(route.callCount == 2)
        let reads = mocks.requests(matching: .graphQL("AddUser", type: .mutation).at(R.endpoint))
        #expect(reads.map(\.method) == ["POST", "POST"])
        #expect(reads.map { $0.graphQLOperation?.document } == [nil, R.addUserDocument])
        #expect(reads.map { $0.graphQLOperation?.type } == [.mutation, .mutation])
        #expect(mocks.failures.isEmpty)
    }
}
