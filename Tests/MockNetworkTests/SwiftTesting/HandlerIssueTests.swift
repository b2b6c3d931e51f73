import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `#expect` inside a handler, which runs for a request on Foundation's threads, is an issue of
/// the test that registered the handler.
@Suite
struct HandlerIssueTests {
    /// The trait's scope is opened inside `withKnownIssue`, so the issue is known only if it is
    /// recorded in this test's context; recorded elsewhere, it would fail the run as an issue of no test.
    @Test func expectationInsideAHandlerFailsThisTest() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/orders") { request in
                    #expect(request.httpMethod == "POST", "orders are created with POST")
                    return .status(201)
                }
                _ = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/orders")))
            }
        } matching: { issue in
            issue.messages == ["orders are created with POST"]
        }
    }

    @Test(.mockNetwork) func passingExpectationsInsideHandlersRecordNothing() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/me") { request in
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
            return .json(#"{"id": 1}"#)
        }
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me")))
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let (data, _) = try await mocks.session.data(for: request)
        #expect(String(decoding: data, as: UTF8.self) == #"{"id": 1}"#)
    }
}
