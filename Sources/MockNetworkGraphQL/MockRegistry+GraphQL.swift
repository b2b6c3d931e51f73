import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Registering handlers that read the GraphQL operation a request carries: GraphQL's own kind of
/// handler, added to every ``MockRegistering`` type as the core's kinds are.
extension MockRegistering {
    /// Answers requests that `match` describes (typically `.graphQL(_:type:variables:allVariables:)`)
    /// with a handler that also gets the request's GraphQL operation: its name, type, document,
    /// variables and extensions.
    ///
    /// ```swift
    /// mocks.register(.graphQL("GetUser")) { request, operation in
    ///     let id = operation.variables["id"]?.stringValue ?? "?"
    ///     return .graphQL(data: #"{"user": {"id": "\#(id)"}}"#, for: request)
    /// }
    /// ```
    ///
    /// A closure that names no type for its second parameter and reads no member of it
    /// (`{ request, _ in … }`) fits this form and the `(request, parameters)` one alike, so it does
    /// not compile ("ambiguous use of 'register'"): take the request alone (`{ request in … }`), or
    /// name the type, `{ (request, operation: GraphQLOperation) in … }`.
    ///
    /// A request that carries no one operation (no GraphQL request, or a batch) fails with the
    /// ``GraphQLFormatError`` that says why, as a handler's error does.
    @discardableResult
    // `{ request, _ in }` fits (request, parameters) too: name the type, `(request, operation: GraphQLOperation)`.
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, GraphQLOperation) throws -> MockResponse
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            routeResponders: [
                .readingBody(isAsync: false) { read in
                    .sync { .mock(try handler($0, try MockRegistry.operation(of: $0, read: read))) }
                }
            ], repeatsLast: true)
    }

    /// Answers requests that `match` describes with an `async` handler that also gets the request's
    /// GraphQL operation; it runs in a task of its own that is cancelled when the request ends first.
    @discardableResult
    // `{ request, _ in }` fits (request, parameters) too: name the type, `(request, operation: GraphQLOperation)`.
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, GraphQLOperation) async throws -> MockResponse
    ) -> MockRoute {
        mockRegistry.add(
            match.requestMatch.method(method), expectedCalls,
            SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            routeResponders: [
                .readingBody(isAsync: true) { read in
                    .async { .mock(try await handler($0, try MockRegistry.operation(of: $0, read: read))) }
                }
            ], repeatsLast: true)
    }
}

extension MockRegistry {
    /// The one operation `request` carries, or the error that says why it carries none: from what its
    /// lookup `read` of the body (a GraphQL match reads it), else read here, where the handler runs.
    static func operation(of request: URLRequest, read: [ObjectIdentifier: any Sendable]) throws -> GraphQLOperation {
        let lookup = (read[ObjectIdentifier(GraphQLReading.self)] as? GraphQLReading)?.operations
        let operations = try (lookup ?? Result { try GraphQLOperation.operations(in: request) }).get()
        guard operations.count == 1, operations[0].batchIndex == nil else {
            throw GraphQLFormatError.notGraphQL(
                "\(RecordedRequest.method(of: request)) \(shortened(request.url?.absoluteString ?? "")) carries a "
                    + "batch of \(operations.count) operations, and a handler that takes (request, operation) "
                    + "reads one. Register a handler that takes the request alone and read "
                    + "GraphQLOperation.operations(in: request).")
        }
        return operations[0]
    }
}
