import Foundation
import GraphQLClient
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The blog's GraphQL operations against MockNetwork: every operation goes to one URL, and each
/// test answers operations by name and variables. No test sleeps: a subscription's results come at
/// MockNetwork's pace.
final class BlogAPITests: MockNetworkTestCase {
    private let endpoint = "https://blog.example.com/graphql"

    private func api() throws -> BlogAPI {
        BlogAPI(
            client: GraphQLClient(endpoint: try XCTUnwrap(URL(string: endpoint)), configuration: mocks.configuration))
    }

    func testUsersAreFetchedByOperationAndVariables() async throws {
        mocks.register(.graphQL("GetUser", variables: ["id": "7"]).at(endpoint)) { request in
            .graphQL(data: #"{"user": {"id": "7", "name": "Ada"}}"#, for: request)
        }
        mocks.register(.graphQL("GetUser", variables: ["id": "8"]).at(endpoint)) { request in
            .graphQL(data: #"{"user": {"id": "8", "name": "Grace"}}"#, for: request)
        }

        let api = try api()
        let ada = try await api.user(id: "7")
        let grace = try await api.user(id: "8")

        XCTAssertEqual([ada.id, ada.name], ["7", "Ada"])
        XCTAssertEqual([grace.id, grace.name], ["8", "Grace"])
        let sent = mocks.requests(matching: .graphQL("GetUser"))
        XCTAssertEqual(sent.compactMap(\.graphQLOperation).map(\.variables), [["id": "7"], ["id": "8"]])
        XCTAssertEqual(
            sent.first?.request.value(forHTTPHeaderField: "Accept"),
            "application/graphql-response+json, application/json;q=0.9")
    }

    func testAUserTheServerHasNotIsItsGraphQLError() async throws {
        struct Variables: Decodable { let id: String }
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = try operation.variables(as: Variables.self).id
            return .graphQL(
                data: #"{"user": null}"#, errors: [.init(message: "No user \(id)", path: ["user"])], for: request)
        }

        do {
            _ = try await api().user(id: "9")
            XCTFail("no user 9")
        } catch {
            XCTAssertEqual(error as? GraphQLClient.Failure, .graphQL(["No user 9"]))
        }
    }

    func testAMutationAnsweredWithAnErrorThrowsTheServersMessage() async throws {
        mocks.register(.graphQL("CreatePost", type: .mutation, variables: ["title": "Hello"])) { request in
            // A partial result: the field is null, and the error says why.
            .graphQL(
                data: #"{"createPost": null}"#, errors: [.init(message: "Title taken", path: ["createPost"])],
                for: request)
        }

        do {
            _ = try await api().createPost(title: "Hello")
            XCTFail("the title is taken")
        } catch {
            XCTAssertEqual(error as? GraphQLClient.Failure, .graphQL(["Title taken"]))
        }
        mocks.expect(.graphQL(type: .mutation), count: .exactly(1))
    }

    func testNewCommentsArriveOverTimeUntilTheSubscriptionCompletes() async throws {
        mocks.register(.graphQL("CommentAdded", type: .subscription, variables: ["postID": "p1"])) { request in
            XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "text/event-stream")
            return .graphQLEvents(
                [
                    #"{"data": {"commentAdded": {"id": "c1", "text": "First!"}}}"#,
                    #"{"data": {"commentAdded": {"id": "c2", "text": "Nice post"}}}"#,
                ], every: .milliseconds(20))
        }

        var comments: [BlogAPI.Comment] = []
        for try await comment in try api().comments(on: "p1") { comments.append(comment) }

        XCTAssertEqual(comments.map(\.text), ["First!", "Nice post"])
    }
}
