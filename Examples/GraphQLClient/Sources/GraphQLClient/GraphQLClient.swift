import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small GraphQL client over plain `URLSession`: queries and mutations as a `POST` of
/// `{"operationName", "query", "variables"}` to one endpoint, and subscriptions as GraphQL over
/// server-sent events (`GraphQLSubscription`).
public final class GraphQLClient: @unchecked Sendable {
    // `@unchecked`: every property is a `let` set once; the configuration is only read, to make
    // sessions (which copy it).

    /// One entry of a response's `errors`.
    public struct ResponseError: Decodable, Equatable, Sendable {
        /// What went wrong.
        public let message: String
    }

    /// A GraphQL response: `data`, `errors`, or both (a partial result).
    public struct Response<Value: Decodable & Sendable>: Decodable, Sendable {
        /// The operation's fields; `nil` when the operation failed as a whole.
        public let data: Value?
        /// What went wrong; empty when nothing did.
        public let errors: [ResponseError]

        enum CodingKeys: String, CodingKey { case data, errors }

        /// The response `decoder` holds; `errors` empty when it has none.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            data = try container.decodeIfPresent(Value.self, forKey: .data)
            errors = try container.decodeIfPresent([ResponseError].self, forKey: .errors) ?? []
        }
    }

    /// Why an operation gave no usable answer.
    public enum Failure: Error, Equatable {
        /// The server answered with a status that is no success.
        case status(Int)
        /// The response carries GraphQL errors (their messages).
        case graphQL([String])
    }

    let endpoint: URL
    private let session: URLSession
    let configuration: URLSessionConfiguration

    /// A client for the GraphQL server at `endpoint`, with sessions made from `configuration`.
    public init(endpoint: URL, configuration: URLSessionConfiguration = .default) {
        self.endpoint = endpoint
        self.configuration = configuration
        session = URLSession(configuration: configuration)
    }

    /// Runs a query or mutation and returns its response as it came (data, errors, or both).
    ///
    /// - Throws: ``Failure/status(_:)`` for a status that is no success, or the error decoding threw.
    public func perform<Variables: Encodable & Sendable, Value: Decodable & Sendable>(
        _ name: String, document: String, variables: Variables, as type: Value.Type
    ) async throws -> Response<Value> {
        let request = try self.request(name, document: document, variables: variables)
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        // A GraphQL server answers request errors with 4xx and a GraphQL response, which says more.
        guard (200..<300).contains(status) || (400..<500).contains(status) else { throw Failure.status(status) }
        return try JSONDecoder().decode(Response<Value>.self, from: data)
    }

    /// The `POST` of one operation, asking for the GraphQL media type first.
    func request<Variables: Encodable>(
        _ name: String, document: String, variables: Variables, accept: String? = nil
    ) throws -> URLRequest {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(
            accept ?? "application/graphql-response+json, application/json;q=0.9", forHTTPHeaderField: "Accept")
        request.httpBody = try JSONEncoder().encode(
            OperationBody(operationName: name, query: document, variables: variables))
        return request
    }
}

/// What a `POST` of one operation carries, as GraphQL over HTTP names it.
private struct OperationBody<Variables: Encodable>: Encodable {
    let operationName: String
    let query: String
    let variables: Variables
}
