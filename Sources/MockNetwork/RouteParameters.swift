import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The values a path template captured from a request, by name, percent-decoded.
///
/// ```swift
/// mocks.register("https://api.example.com/v1/users/{id}/posts/{postID}") { request, parameters in
///     .json(posts[parameters["id"]!]![parameters["postID"]!])
/// }
/// ```
public struct RouteParameters: Sendable, Equatable {
    /// Every captured value by its parameter's name (a catch-all `{path*}` under `path`).
    public let values: [String: String]

    /// The value captured for `{name}`, or `nil` when the template has no such parameter.
    public subscript(_ name: String) -> String? { values[name] }

    /// The values `match`'s template captures from `url`; none for a match that is no template.
    init(_ match: RequestMatch, _ url: URL?) {
        guard let url, case .template(_, _, let path) = match.target else {
            values = [:]
            return
        }
        values = path.capture(PathTemplate.segments(of: url)) ?? [:]
    }
}

extension MockRegistering {
    /// Answers requests that `match` describes (typically a template, `"…/users/{id}"`) with a
    /// handler that also gets the values the template captured: `parameters["id"]`.
    ///
    /// A closure that names no type for its second parameter (`{ request, _ in … }`) fits this form
    /// and GraphQL's `(request, operation)` alike, so it does not compile ("ambiguous use of
    /// 'register'"): take the request alone (`{ request in … }`), or name the type,
    /// `{ (request, parameters: RouteParameters) in … }`.
    @discardableResult
    // `{ request, _ in }` fits (request, operation) too: name the type, `(request, parameters: RouteParameters)`.
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, RouteParameters) throws -> MockResponse
    ) -> MockRoute {
        let match = match.requestMatch.method(method)
        return mockRegistry.add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [.sync { .mock(try handler($0, RouteParameters(match, $0.url))) }], repeatsLast: true)
    }

    /// Answers requests that `match` describes with an `async` handler that also gets the values
    /// the template captured.
    @discardableResult
    // `{ request, _ in }` fits (request, operation) too: name the type, `(request, parameters: RouteParameters)`.
    public func register(
        _ match: any RequestMatchConvertible, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, RouteParameters) async throws -> MockResponse
    ) -> MockRoute {
        let match = match.requestMatch.method(method)
        return mockRegistry.add(
            match, expectedCalls, SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column),
            [.async { .mock(try await handler($0, RouteParameters(match, $0.url))) }], repeatsLast: true)
    }
}
