import Foundation

/// The app's operations, on a ``GraphQLClient``: a user, a new post, and a post's comments as they come.
public struct BlogAPI: Sendable {
    /// A user.
    public struct User: Decodable, Equatable, Sendable {
        /// The user's ID.
        public let id: String
        /// The user's name.
        public let name: String
    }

    /// A post.
    public struct Post: Decodable, Equatable, Sendable {
        /// The post's ID.
        public let id: String
        /// The post's title.
        public let title: String
    }

    /// A comment on a post.
    public struct Comment: Decodable, Equatable, Sendable {
        /// The comment's ID.
        public let id: String
        /// What it says.
        public let text: String
    }

    private let client: GraphQLClient

    /// The operations, sent with `client`.
    public init(client: GraphQLClient) { self.client = client }

    /// The user `id`.
    ///
    /// - Throws: ``GraphQLClient/Failure/graphQL(_:)`` when the server found none or failed.
    public func user(id: String) async throws -> User {
        struct Fields: Decodable, Sendable { let user: User? }
        let response = try await client.perform(
            "GetUser", document: "query GetUser($id: ID!) { user(id: $id) { id name } }", variables: ["id": id],
            as: Fields.self)
        guard let user = response.data?.user else {
            throw GraphQLClient.Failure.graphQL(response.errors.map(\.message))
        }
        return user
    }

    /// Creates a post titled `title`.
    ///
    /// - Throws: ``GraphQLClient/Failure/graphQL(_:)`` with the server's messages when the post was not created.
    public func createPost(title: String) async throws -> Post {
        struct Fields: Decodable, Sendable { let createPost: Post? }
        let response = try await client.perform(
            "CreatePost", document: "mutation CreatePost($title: String!) { createPost(title: $title) { id title } }",
            variables: ["title": title], as: Fields.self)
        guard let post = response.data?.createPost, response.errors.isEmpty else {
            throw GraphQLClient.Failure.graphQL(response.errors.map(\.message))
        }
        return post
    }

    /// The comments added to post `postID`, as the server sends them.
    public func comments(on postID: String) -> AsyncThrowingStream<Comment, any Error> {
        struct Fields: Decodable, Sendable { let commentAdded: Comment }
        let results = client.subscribe(
            "CommentAdded",
            document: "subscription CommentAdded($postID: ID!) { commentAdded(postID: $postID) { id text } }",
            variables: ["postID": postID], as: Fields.self)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await result in results { continuation.yield(result.commentAdded) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
