import MockNetwork
import Testing

extension Trait where Self == MockNetworkTrait {
    /// Gives every test, and every case of a parameterized test, a fresh ``MockNetwork/MockRegistry``
    /// and session, read with `MockRegistry.current`; at the end of each, reports what the
    /// registry noticed as issues of that test. On a suite, it applies to every test inside.
    ///
    /// ```swift
    /// @Suite(.mockNetwork)
    /// struct FeedTests {
    ///     @Test func loadsFeed() async throws {
    ///         let mocks = MockRegistry.current
    ///         mocks.register("https://api.example.com/feed") { _ in try .json(feedJSON) }
    ///         let feed = try await FeedClient(session: mocks.session).feed()
    ///         #expect(feed.items.count == 2)
    ///     }
    /// }
    /// ```
    public static var mockNetwork: Self { MockNetworkTrait() }
}

/// The trait behind `.mockNetwork`: a registry per test, so tests run in parallel without
/// seeing each other's handlers.
public struct MockNetworkTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test in a suite it is on.
    public var isRecursive: Bool { true }

    /// Runs `function` with a fresh registry as `MockRegistry.current`, then reports the
    /// registry's failures as issues of `test`.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let registry = MockRegistry()
        let place = test.sourceLocation
        let fallback = MockNetwork.SourceLocation(
            fileID: place.fileID, filePath: place.filePath, line: place.line, column: place.column)
        do {
            try await MockRegistry.$scoped.withValue(registry) {
                try await function()
            }
        } catch {
            Lifecycle.end(registry, fallback: fallback, file: #filePath, line: #line)
            throw error
        }
        Lifecycle.end(registry, fallback: fallback, file: #filePath, line: #line)
    }
}

extension MockRegistry {
    @TaskLocal static var scoped: MockRegistry?

    /// The registry of the running test, given by the `.mockNetwork` trait.
    ///
    /// Read outside such a test, it records an issue that says how to fix that, and returns a new,
    /// empty registry.
    public static var current: MockRegistry {
        if let scoped { return scoped }
        Reporter.fail(
            "MockNetwork: MockRegistry.current was read outside a test with the .mockNetwork trait, so there is "
                + "no registry for this test. Add the trait: @Test(.mockNetwork) or @Suite(.mockNetwork).",
            at: nil, fallback: MockNetwork.SourceLocation(), file: #filePath, line: #line)
        return MockRegistry()
    }
}
