import Foundation
import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Under the `.mockNetwork` trait: a test whose client gave up on a slow answer, and whose server
/// stops as the test ends, has no issue.
@Suite
struct MockServerHangUpTraitTests {
    @Test func aClientThatGaveUpIsNoIssueWhenTheTestEnds() async throws {
        let test = try #require(Test.current)
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 60, "clients that gave up under the .mockNetwork trait")
        defer { finished.update { $0 = true } }
        for round in 0..<16 {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 2) }
                // Released as the test's body ends, or stopped by it on the way out: both stop it.
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                defer { if round.isMultiple(of: 2) { server.stop() } }
                let session = plainSession()
                defer { session.finishTasksAndInvalidate() }
                var request = URLRequest(url: server.url("/slow"))
                request.timeoutInterval = 0.3
                await #expect(throws: URLError.self, "the client's timeout passes") {
                    try await session.data(for: request)
                }
            }
        }
    }
}
