import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A GraphQL operation that a request carries, read as the GraphQL-over-HTTP specification sends it.
///
/// A `POST` carries it as a JSON body (`query`, `operationName`, `variables`, `extensions`), a `GET`
/// as query items (`variables` and `extensions` JSON-encoded), and an upload as the `operations`
/// field of a `multipart/form-data` body (the GraphQL multipart request spec). An automatic
/// persisted query may carry only its hash (`extensions.persistedQuery.sha256Hash`), and a batch is a
/// JSON array of operations.
///
/// ```swift
/// let operation = try XCTUnwrap(GraphQLOperation(request))
/// XCTAssertEqual(operation.name, "GetUser")
/// XCTAssertEqual(operation.type, .query)
/// XCTAssertEqual(operation.variables["id"], 7)
/// let variables = try operation.variables(as: GetUserQuery.Variables.self)
/// ```
public struct GraphQLOperation: Sendable, Hashable, CustomStringConvertible {
    /// What an operation does: read, write, or watch.
    public enum OperationType: String, Sendable, Hashable, CaseIterable {
        /// A read (`query`, or a document's anonymous `{ … }`).
        case query
        /// A write (`mutation`).
        case mutation
        /// A stream of results over time (`subscription`).
        case subscription
    }

    /// The operation's name: the request's `operationName`, else the name its document gives its only
    /// operation; `nil` for an anonymous one.
    public let name: String?
    /// Query, mutation or subscription, as the document defines the operation. With no document (a
    /// persisted query's hash alone), the `X-APOLLO-OPERATION-TYPE` header says, as Apollo iOS sends
    /// it; `nil` when nothing does.
    public let type: OperationType?
    /// The GraphQL document (the request's `query`); `nil` for a persisted query sent as its hash alone.
    public let document: String?
    /// The operation's variables; empty when the request sends none.
    public let variables: [String: JSONValue]
    /// The request's `extensions` (Apollo iOS sends `clientLibrary` and `persistedQuery` there); empty
    /// when it sends none.
    public let extensions: [String: JSONValue]
    /// The operation's place in a batch (a JSON array of operations, counted from 0); `nil` for a
    /// request that carries one operation.
    public let batchIndex: Int?

    init(
        name: String?, type: OperationType?, document: String?, variables: [String: JSONValue],
        extensions: [String: JSONValue], batchIndex: Int?
    ) {
        self.name = name
        self.type = type
        self.document = document
        self.variables = variables
        self.extensions = extensions
        self.batchIndex = batchIndex
    }

    /// The hash of an automatic persisted query: `extensions.persistedQuery.sha256Hash`.
    public var persistedQueryHash: String? { extensions["persistedQuery"]?["sha256Hash"]?.stringValue }

    /// The operation as a message names it: `query GetUser {"id":7}`.
    public var description: String {
        let variables = variables.isEmpty ? "" : " \(JSONValue.object(self.variables))"
        return "\(type?.rawValue ?? "operation") \(name ?? "(anonymous)")" + variables
    }

    /// The variables decoded into `type`, such as the `Variables` of an operation your code defines.
    ///
    /// - Throws: `MockNetworkError.undecodableBody(_:)` saying why they did not decode, and what they were.
    public func variables<Value: Decodable>(as target: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws
        -> Value
    {
        do {
            return try JSONValue.object(variables).decode(target, decoder: decoder)
        } catch {
            throw MockNetworkError.undecodableBody(
                "the variables of \(type?.rawValue ?? "the operation") \(name ?? "(anonymous)") are not a "
                    + "\(Value.self): \(JSONValue.reason(error)). The variables: "
                    + "\(MockRegistry.shortened(JSONValue.object(variables).description)).")
        }
    }

    /// The operations `request` carries: one, or a batch's in order.
    ///
    /// - Parameters:
    ///   - request: the request, such as the one a handler gets.
    ///   - body: its body; `request.httpBody` when `nil` (MockNetwork sets it for handlers, whatever
    ///     way the client sent the body).
    /// - Throws: ``GraphQLFormatError/notGraphQL(_:)`` for a request that is no GraphQL-over-HTTP
    ///   request (another method, a body that is not JSON, a field of the wrong type, neither a
    ///   document nor a persisted query's hash, a `query` that is no document: an operation with no
    ///   selection set, `{ … }`), ``GraphQLFormatError/unresolvedOperation(_:)`` for a
    ///   document that does not name one operation (none, several and no `operationName`, or an
    ///   `operationName` it does not define), or `MultipartFormatError` for a malformed upload.
    public static func operations(in request: URLRequest, body: Data? = nil) throws -> [GraphQLOperation] {
        do {
            return try GraphQLRequestReader(request: request, body: body ?? request.httpBody ?? Data()).operations()
        } catch let problem as GraphQLRequestReader.Problem {
            throw problem.error
        }
    }

    /// The one operation `request` carries; `nil` for a request that is no GraphQL request, or
    /// carries a batch (``operations(in:body:)`` reads those, and says what is wrong with the others).
    public init?(_ request: URLRequest, body: Data? = nil) {
        guard let operations = try? Self.operations(in: request, body: body), operations.count == 1,
            operations[0].batchIndex == nil
        else { return nil }
        self = operations[0]
    }
}
