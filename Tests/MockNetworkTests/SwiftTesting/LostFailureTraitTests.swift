import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every request a test started is accounted for at its end, and the process-wide registry's
/// failures reach the test that used it.
@Suite struct LostFailureTraitTests {
    static let slow = "https://api.example.com/slow-ping"
    static let inFlight =
        "MockNetwork: 1 request was still in flight when the test ended: GET \(slow). Await every request "
        + "(or cancel it) before the test returns; delayed responses and bodies still arriving keep a request open."

    /// Registers a handler that takes 10 s, so the request is unanswered when the test returns, even
    /// on a loaded machine where the end of the test waits a while for requests not begun yet.
    static func registerSlow(_ mocks: MockRegistry) {
        mocks.register(.url(slow)) { _ in
            Thread.sleep(forTimeInterval: 10)
            return .status(204)
        }
    }

    @Test func dataTaskResumedAndNotAwaitedIsReported() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                Self.registerSlow(mocks)
                mocks.session.dataTask(with: try #require(URL(string: Self.slow))).resume()
            }
        } matching: { issue in
            issue.messages == [Self.inFlight]
        }
    }

    @Test func unstructuredTaskNotAwaitedIsReported() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                Self.registerSlow(mocks)
                let url = try #require(URL(string: Self.slow))
                Task { _ = try? await mocks.session.data(from: url) }
            }
        } matching: { issue in
            issue.messages == [Self.inFlight]
        }
    }

    @Test func verifyRightAfterResumeCountsTheRequest() async throws {
        let mocks = MockRegistry()
        Self.registerSlow(mocks)
        let task = mocks.session.dataTask(with: try #require(URL(string: Self.slow)))
        task.resume()
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages == [Self.inFlight]
        }
        task.cancel()
    }

    @Test func processWideRegistryFailuresReachTheTestThatUsedIt() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let configuration = URLSessionConfiguration.ephemeral
                configuration.protocolClasses = [MockURLProtocol.self]
                let tutorial = URLSession(configuration: configuration)
                MockURLProtocol.registry.register("https://api.example.com/wired-trait") { _ in .text("wired") }
                let (data, _) = try await tutorial.data(
                    from: try #require(URL(string: "https://api.example.com/wired-trait")))
                #expect(String(decoding: data, as: UTF8.self) == "wired")
                _ = try? await tutorial.data(from: try #require(URL(string: "https://api.example.com/unwired-trait")))
                MockURLProtocol.registry.remove("https://api.example.com/wired-trait")
            }
        } matching: { issue in
            issue.messages.first?.hasPrefix(
                "MockNetwork: no handler for GET https://api.example.com/unwired-trait.") == true
        }
    }
}
