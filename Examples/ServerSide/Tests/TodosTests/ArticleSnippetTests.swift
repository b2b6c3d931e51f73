import AsyncHTTPClient
import MockNetworkServer
import MockNetworkTesting
import OpenAPIAsyncHTTPClient
import Testing

@testable import Todos

/// The code of the "AsyncHTTPClient and OpenAPI clients" section of MockNetworkServer's article
/// ("Serving over HTTP"), run here; the main package's `ServingArticleTests` checks that each of
/// that section's snippets is code of this folder, in lines that fit DocC's code box.
@Suite(.mockNetwork, .timeLimit(.minutes(1)))
struct ArticleSnippetTests {
    @Test func asyncHTTPClient() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos/1") { _ in
            .json(#"{"id": 1, "title": "milk", "done": false}"#)
        }
        let origin = "https://api.example.com"
        let server = try MockServer(serving: mocks, as: [origin])

        let todos = TodoClient(baseURL: server.url, httpClient: .shared)
        let todo = try await todos.todo(id: 1)
        #expect(todo.title == "milk")
    }

    @Test func generatedOpenAPIClient() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos/1") { _ in
            .json(#"{"id": 1, "title": "milk", "done": false}"#)
        }
        let origin = "https://api.example.com"
        let server = try MockServer(serving: mocks, as: [origin])

        let transport = AsyncHTTPClientTransport()  // HTTPClient.shared
        let client = Client(serverURL: server.url, transport: transport)
        let output = try await client.getTodo(path: .init(id: 1))
        #expect(try output.ok.body.json.title == "milk")
    }
}
