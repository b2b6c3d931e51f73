import Dispatch
import Foundation
import MockNetwork
import Testing

extension Trait where Self == MockNetworkTrait {
    /// Gives every test, and every case of a parameterized test, a fresh `MockRegistry`
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
        let runner = TestTaskRunner()
        registry.handlerContext = runner.submit
        defer { runner.finish() }
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

/// Runs handlers inside the test's task, so that `#expect` and `Issue.record` in a handler are
/// issues of the test that registered it (on Foundation's threads, no test is current).
///
/// The loop is a task made inside the test's scope, so it and the tasks it makes inherit the
/// test's task-local values, `Test.current` among them. Should the concurrency pool be blocked
/// (a synchronous test waiting on a semaphore for its own request), a handler not started within
/// two seconds runs on a Dispatch thread instead, so the request is answered all the same.
final class TestTaskRunner: Sendable {
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        self.continuation = continuation
        Task {
            for await job in stream {
                Task { job.run() }
            }
        }
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        let job = Job(work)
        continuation.yield(job)
        DispatchQueue.global().asyncAfter(deadline: .now() + 2) { job.run() }
    }

    func finish() {
        continuation.finish()
    }

    /// Work that runs once, wherever it is claimed first.
    final class Job: Sendable {
        private let work: @Sendable () -> Void
        private let claimed = ClaimFlag()

        init(_ work: @escaping @Sendable () -> Void) { self.work = work }

        func run() {
            if claimed.claim() { work() }
        }
    }
}

/// A flag that only one caller can set.
final class ClaimFlag: @unchecked Sendable {  // `isSet` is only read and written while `lock` is held
    private let lock = NSLock()
    private var isSet = false

    /// Whether this call set the flag (`false` when an earlier call already had).
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if isSet { return false }
        isSet = true
        return true
    }
}
