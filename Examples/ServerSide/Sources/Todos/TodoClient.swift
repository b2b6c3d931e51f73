import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// A client of the todo service, as a server-side app writes one with AsyncHTTPClient.
public struct TodoClient: Sendable {
    /// Where the service is, such as `https://api.example.com`.
    public let baseURL: URL
    private let httpClient: HTTPClient
    private let timeout: TimeAmount

    /// A client of the service at `baseURL` that sends its requests through `httpClient`.
    ///
    /// - Parameters:
    ///   - baseURL: the service's origin, such as `https://api.example.com`.
    ///   - httpClient: the client to send through; its owner shuts it down.
    ///   - timeout: how long a call may take, its body included.
    public init(baseURL: URL, httpClient: HTTPClient, timeout: TimeAmount = .seconds(10)) {
        self.baseURL = baseURL
        self.httpClient = httpClient
        self.timeout = timeout
    }

    /// The todos, or only those done (or not done) when `done` is given.
    public func todos(done: Bool? = nil) async throws -> [Todo] {
        let query = done.map { "?done=\($0)" } ?? ""
        let response = try await send(HTTPClientRequest(url: url("/todos\(query)")))
        return try await decode([Todo].self, from: response, expecting: 200)
    }

    /// The todo with this identifier.
    ///
    /// - Throws: ``TodoError/notFound(id:)`` when the service has none.
    public func todo(id: Int) async throws -> Todo {
        let response = try await send(HTTPClientRequest(url: url("/todos/\(id)")))
        if response.status == .notFound { throw TodoError.notFound(id: id) }
        return try await decode(Todo.self, from: response, expecting: 200)
    }

    /// Adds a todo with this title; `requestID` lets the service recognize a retried request.
    public func add(title: String, requestID: String) async throws -> Todo {
        var request = HTTPClientRequest(url: url("/todos"))
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "X-Request-ID", value: requestID)
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(["title": title])))
        let response = try await send(request)
        return try await decode(Todo.self, from: response, expecting: 201)
    }

    /// The service's changes as they happen: the `data` of each server-sent event of
    /// `/todos/changes`, as it arrives, until the service ends the stream.
    public func changes() async throws -> AsyncThrowingStream<String, any Error> {
        var request = HTTPClientRequest(url: url("/todos/changes"))
        request.headers.add(name: "Accept", value: "text/event-stream")
        let response = try await send(request)
        guard response.status == .ok else {
            throw TodoError.unexpectedStatus(Int(response.status.code), body: try await text(of: response))
        }
        return AsyncThrowingStream { continuation in
            let reading = Task {
                do {
                    var lines = EventLines()
                    for try await buffer in response.body {
                        for data in lines.append(Data(buffer: buffer)) { continuation.yield(data) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reading.cancel() }
        }
    }

    private func url(_ pathAndQuery: String) -> String {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        return base + pathAndQuery
    }

    private func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        try await httpClient.execute(request, timeout: timeout)
    }

    private func text(of response: HTTPClientResponse) async throws -> String {
        String(buffer: try await response.body.collect(upTo: 1 << 20))
    }

    private func decode<Value: Decodable>(
        _ type: Value.Type, from response: HTTPClientResponse, expecting status: UInt
    ) async throws -> Value {
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status.code == status else {
            throw TodoError.unexpectedStatus(Int(response.status.code), body: String(buffer: body))
        }
        return try JSONDecoder().decode(Value.self, from: body)
    }
}
