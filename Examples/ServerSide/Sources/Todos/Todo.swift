import Foundation

/// A todo as the service sends it.
public struct Todo: Codable, Equatable, Sendable {
    /// The service's identifier.
    public var id: Int
    /// What is to be done.
    public var title: String
    /// Whether it is done.
    public var done: Bool

    /// A todo with these values.
    public init(id: Int, title: String, done: Bool) {
        self.id = id
        self.title = title
        self.done = done
    }
}

/// What went wrong with a call to the todo service.
public enum TodoError: Error, Equatable, Sendable {
    /// No todo has this identifier (the service answered `404`).
    case notFound(id: Int)
    /// The service refused the todo (`422`), for this reason.
    case refused(String)
    /// The service answered with a status the client does not expect, and this text.
    case unexpectedStatus(Int, body: String)
}
