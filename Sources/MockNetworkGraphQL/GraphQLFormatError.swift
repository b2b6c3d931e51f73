import Foundation
import MockNetwork

/// GraphQL that MockNetwork cannot use: a request that is no GraphQL-over-HTTP request, a document
/// that does not name one operation, or an answer that no GraphQL server sends. Each message says
/// what is wrong and how to fix it.
public enum GraphQLFormatError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The request is no GraphQL-over-HTTP request; says why (its method, a body that is not JSON, a
    /// field of the wrong type, neither a document nor a persisted query's hash, a `query` that is no
    /// document, such as free text with no selection set).
    case notGraphQL(String)
    /// The request's document does not name one operation; says why (none, several and no
    /// `operationName`, an `operationName` it does not define, a string that never ends).
    case unresolvedOperation(String)
    /// An answer that no GraphQL server sends; says why (`data` that is not a JSON object, a payload
    /// that is not JSON).
    case invalidAnswer(String)

    /// What went wrong, then how to fix it.
    public var description: String {
        switch self {
        case .notGraphQL(let reason), .unresolvedOperation(let reason), .invalidAnswer(let reason):
            "MockNetwork: \(reason)"
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
