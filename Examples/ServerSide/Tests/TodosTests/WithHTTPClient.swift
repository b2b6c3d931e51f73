import AsyncHTTPClient

/// Runs `body` with an HTTP client of its own and shuts the client down after it, whether `body`
/// returned or threw (AsyncHTTPClient requires a client to be shut down before it is released).
func withHTTPClient<Value: Sendable>(
    _ body: (HTTPClient) async throws -> Value
) async throws -> Value {
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
    do {
        let value = try await body(httpClient)
        try await httpClient.shutdown()
        return value
    } catch {
        try await httpClient.shutdown()
        throw error
    }
}
