import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RecordedRequest {
    /// The GraphQL operation the request carried (see ``GraphQLOperation``); `nil` for a request that
    /// is no GraphQL request, or carries a batch (``graphQLOperations`` reads those).
    public var graphQLOperation: GraphQLOperation? { GraphQLOperation(request, body: body) }

    /// The GraphQL operations the request carried: one, or a batch's in order.
    ///
    /// - Throws: what ``GraphQLOperation/operations(in:body:)`` throws for a request that carries none.
    public var graphQLOperations: [GraphQLOperation] {
        get throws { try GraphQLOperation.operations(in: request, body: body) }
    }
}
