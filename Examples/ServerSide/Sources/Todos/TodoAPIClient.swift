import AsyncHTTPClient
import Foundation
import NIOCore
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// A client of the todo service through the code swift-openapi-generator made from `openapi.yaml`,
/// on its AsyncHTTPClient transport: the generated `Client`'s answers mapped to ``Todo`` and
/// ``TodoError``.
public struct TodoAPIClient: Sendable {
    private let client: Client

    /// A client of the service at `serverURL` that sends its requests through `httpClient`.
    ///
    /// - Parameters:
    ///   - serverURL: the service's origin, such as `https://api.example.com`.
    ///   - httpClient: the client to send through; its owner shuts it down.
    ///   - timeout: how long a call may take.
    public init(serverURL: URL, httpClient: HTTPClient, timeout: TimeAmount = .seconds(10)) {
        let transport = AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: timeout))
        client = Client(serverURL: serverURL, transport: transport)
    }

    /// The todos, or only those done (or not done) when `done` is given.
    public func todos(done: Bool? = nil) async throws -> [Todo] {
        switch try await client.listTodos(query: .init(done: done)) {
        case .ok(let ok): return try ok.body.json.map(Todo.init)
        case .undocumented(let status, let payload): throw await unexpected(status, payload)
        }
    }

    /// The todo with this identifier.
    ///
    /// - Throws: ``TodoError/notFound(id:)`` when the service has none.
    public func todo(id: Int) async throws -> Todo {
        switch try await client.getTodo(path: .init(id: id)) {
        case .ok(let ok): return Todo(try ok.body.json)
        case .notFound: throw TodoError.notFound(id: id)
        case .undocumented(let status, let payload): throw await unexpected(status, payload)
        }
    }

    /// Adds a todo with this title; `requestID` lets the service recognize a retried request.
    ///
    /// - Throws: ``TodoError/refused(_:)`` with the service's reason when it refuses the todo.
    public func add(title: String, requestID: String) async throws -> Todo {
        let output = try await client.createTodo(
            headers: .init(xRequestID: requestID), body: .json(.init(title: title)))
        switch output {
        case .created(let created): return Todo(try created.body.json)
        case .unprocessableContent(let refusal): throw TodoError.refused(try refusal.body.json.message)
        case .undocumented(let status, let payload): throw await unexpected(status, payload)
        }
    }

    private func unexpected(_ status: Int, _ payload: UndocumentedPayload) async -> TodoError {
        var text = ""
        if let body = payload.body { text = (try? await String(collecting: body, upTo: 1 << 20)) ?? "" }
        return TodoError.unexpectedStatus(status, body: text)
    }
}

extension Todo {
    init(_ todo: Components.Schemas.Todo) {
        self.init(id: todo.id, title: todo.title, done: todo.done)
    }
}
