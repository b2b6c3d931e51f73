import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `expect(_:count:)` fails the test at the caller's line; the trait's switch for handlers never called.
@Suite
struct ExpectTraitTests {
    @Test(.mockNetwork) func aMetExpectationRecordsNothing() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/ping") { _ in .status(204) }
        _ = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/ping")))

        mocks.expect(.url("https://api.example.com/ping"), count: .exactly(1))
        mocks.expect(.host("tracker.example.com"), count: .never)
    }

    @Test func anUnmetExpectationFailsAtTheCallersLine() async throws {
        let test = try #require(Test.current)
        let line = Shared(0)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/ping") { _ in .status(204) }
                _ = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/ping")))
                line.update { $0 = #line + 1 }
                mocks.expect(.url("https://api.example.com/ping").method("POST"), count: .atLeast(1))
            }
        } matching: { issue in
            issue.sourceLocation?.line == line.current
                && issue.messages == [
                    """
                    MockNetwork: expected at least 1 request matching POST https://api.example.com/ping, got 0.
                    Requested (1): GET https://api.example.com/ping
                    Nearest: GET https://api.example.com/ping (method GET ≠ POST)
                    """
                ]
        }
    }

    @Test func theTraitCanRequireEveryHandlerCalled() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork(requiringEveryHandlerCalled: true).provideScope(
                for: test, testCase: nil
            ) {
                MockRegistry.current.register("https://api.example.com/never") { _ in .status(204) }
            }
        } matching: { issue in
            issue.messages.first?.hasPrefix(
                "MockNetwork: the handler for https://api.example.com/never was never called")
                == true
        }
    }
}
