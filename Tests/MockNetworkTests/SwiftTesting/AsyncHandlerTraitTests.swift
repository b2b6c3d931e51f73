import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Async handlers, holds and awaited requests under the `.mockNetwork` trait: in the test's task
/// tree, with its registry, and its issues.
@Suite
struct AsyncHandlerTraitTests {
    @Test func expectationInsideAnAsyncHandlerFailsThisTest() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/orders") { request in
                    await Task.yield()
                    #expect(request.httpMethod == "POST", "orders are created with POST (async)")
                    return .status(201)
                }
                _ = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/orders")))
            }
        } matching: { issue in
            issue.messages == ["orders are created with POST (async)"]
        }
    }

    @Test(.mockNetwork) func anAsyncHandlerSeesTheTestsRegistry() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/token") { _ in .text("t") }
        mocks.register("https://api.example.com/me") { _ in
            // `MockRegistry.current` inside the handler is this test's: a nested request reaches it.
            let (token, _) = try await MockRegistry.current.session.data(
                from: URL(string: "https://api.example.com/token")!)
            return .text("me with " + String(decoding: token, as: UTF8.self))
        }

        let (data, _) = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/me")))

        #expect(String(decoding: data, as: UTF8.self) == "me with t")
    }

    @Test(.mockNetwork) func aHeldRequestIsReleasedByTheTest() async throws {
        let mocks = MockRegistry.current
        let gate = mocks.hold("https://api.example.com/feed")
        let session = mocks.session
        let load = Task { try await session.data(from: URL(string: "https://api.example.com/feed")!) }

        let arrived = try await gate.arrived()
        #expect(arrived.url.path == "/feed")
        gate.release(with: .json("[]"))

        let (data, _) = try await load.value
        #expect(String(decoding: data, as: UTF8.self) == "[]")
    }

    @Test func aRequestStillHeldWhenTheTestEndsIsAnIssueNamingItsURL() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                let gate = mocks.hold("https://api.example.com/never")
                let session = mocks.session
                Task { _ = try? await session.data(from: URL(string: "https://api.example.com/never")!) }
                try await gate.arrived()
            }
        } matching: { issue in
            issue.messages.contains { $0.contains("GET https://api.example.com/never was still held") }
        }
    }
}
