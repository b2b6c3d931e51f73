import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The forms of `register` that took a `String` or a `URL` value, from before a string literal was a
/// ``RequestMatch``; each forwards to the form that takes the match, `.url(url)`. The `String` forms
/// take `some StringProtocol` and are disfavored, so that a literal picks the match's form, not these.
extension MockRegistering {
    /// Answers requests for `url` with `handler`; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with a handler in the tutorials' shape; write `register(.url(url), …)`.
    ///
    /// The handler is optional only so that a closure that only throws (`{ _ in throw … }`) picks the
    /// `MockResponse` form above: passing a closure as an optional costs the type checker a
    /// conversion, and this form and that one are both generic and disfavored, so nothing else
    /// tells them apart.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register<Response: HTTPURLResponse>(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: (@Sendable (URLRequest) throws -> (Response, Data))?
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column
        ) { request in
            guard let handler else { throw URLError(.unsupportedURL) }
            return try handler(request)
        }
    }

    /// Answers requests for `url` with an `async` handler; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with `responses`, one each, in order; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        sequence responses: [MockResponse]
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, sequence: responses)
    }

    /// Answers requests for `url` with `response`, the same each time; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        answer response: MockResponse
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, answer: response)
    }

    /// Answers requests for `url` with a handler that also gets what its template captured; write
    /// `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, RouteParameters) throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with an `async` handler that also gets what its template captured;
    /// write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @_disfavoredOverload
    @discardableResult
    public func register(
        _ url: some StringProtocol, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest, RouteParameters) async throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(String(url)), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with `handler`; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(url), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with a handler in the tutorials' shape; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @discardableResult
    public func register<Response: HTTPURLResponse>(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> (Response, Data)
    ) -> MockRoute {
        register(
            .url(url), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with an `async` handler; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) async throws -> MockResponse
    ) -> MockRoute {
        register(
            .url(url), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, handler)
    }

    /// Answers requests for `url` with `responses`, one each, in order; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        sequence responses: [MockResponse]
    ) -> MockRoute {
        register(
            .url(url), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, sequence: responses)
    }

    /// Answers requests for `url` with `response`, the same each time; write `register(.url(url), …)`.
    @available(*, deprecated, message: "write register(.url(url), …): .url(_:) makes a RequestMatch of a String or URL")
    @discardableResult
    public func register(
        _ url: URL, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        answer response: MockResponse
    ) -> MockRoute {
        register(
            .url(url), method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath,
            line: line, column: column, answer: response)
    }
}
