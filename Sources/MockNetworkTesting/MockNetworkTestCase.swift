import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An `XCTestCase` that gives every test a fresh `MockRegistry` and its `session`,
/// and reports the registry's failures (such as unmatched requests) as failures of that test.
///
/// ```swift
/// final class UserTests: MockNetworkTestCase {
///     func testLoadsUser() async throws {
///         register("https://api.example.com/user") { _ in try .json(#"{"name": "Ada"}"#) }
///         let user = try await UserClient(session: session).user()
///         XCTAssertEqual(user.name, "Ada")
///     }
/// }
/// ```
/// Overrides of `setUp()` and `tearDown()` must call `super`. With a base class of your own,
/// keep a `MockRegistry()` made in `setUp()` and call its `verify()` in `tearDown()`.
open class MockNetworkTestCase: XCTestCase {
    private var current: MockRegistry?

    /// This test's registry, made fresh for every test.
    public var mocks: MockRegistry {
        if let current { return current }
        let registry = MockRegistry()
        current = registry
        return registry
    }

    /// This test's session: its requests are answered by ``mocks``.
    public var session: URLSession { mocks.session }

    /// Makes this test's registry.
    override open func setUp() {
        super.setUp()
        current = MockRegistry()
    }

    /// Reports what the registry noticed as failures of this test, then drops the registry.
    override open func tearDown() {
        if let current {
            Lifecycle.end(
                current, fallback: MockNetwork.SourceLocation(fileID: #fileID, filePath: #filePath, line: #line),
                file: #filePath, line: #line)
        }
        current = nil
        super.tearDown()
    }

    /// Answers this test's requests for `url` with `handler`; see `MockRegistry`.
    @discardableResult
    public func register(
        _ url: String, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        mocks.register(
            url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
            column: column, handler)
    }

    /// Answers this test's requests for `url` with a handler in the tutorials' shape.
    @_disfavoredOverload  // a handler that only throws picks the MockResponse form
    @discardableResult
    public func register(
        _ url: String, method: String? = nil, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping MockHandler
    ) -> MockRoute {
        mocks.register(
            url, method: method, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line,
            column: column, handler)
    }

    /// Answers this test's requests that `match` describes with `handler`.
    @discardableResult
    public func register(
        _ match: RequestMatch, expectedCalls: Int? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column,
        _ handler: @escaping @Sendable (URLRequest) throws -> MockResponse
    ) -> MockRoute {
        mocks.register(
            match, expectedCalls: expectedCalls, fileID: fileID, filePath: filePath, line: line, column: column,
            handler)
    }
}
