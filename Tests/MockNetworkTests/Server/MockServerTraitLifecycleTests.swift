import Foundation
import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Under the `.mockNetwork` trait, a server serving the test's registry stops when the test's scope
/// ends, after its issues are recorded; a request an app forwarded with a wrong secret is one of them.
@Suite
struct MockServerTraitLifecycleTests {
    @Test func aServerOfTheTestsRegistryStopsWhenTheTestEnds() async throws {
        let test = try #require(Test.current)
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 30, "a MockServer under the .mockNetwork trait")
        defer { finished.update { $0 = true } }
        let kept = Shared<MockServer?>(nil)
        try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
            let mocks = MockRegistry.current
            mocks.register("https://api.example.com/ping") { _ in .text("pong") }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            kept.update { $0 = server }
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let (data, _) = try await session.data(from: server.url("/ping"))
            #expect(String(decoding: data, as: UTF8.self) == "pong")
        }
        // Kept past the scope, so only the end of the test's scope can have stopped it.
        let server = try #require(kept.current)
        #expect(throws: (any Error).self, "the port is closed") { try RawHTTPClient(port: server.port) }
    }

    @Test func aForwardedRequestWithAWrongSecretIsAnIssueOfTheTest() async throws {
        let test = try #require(Test.current)
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 30, "a refused forwarded request under the .mockNetwork trait")
        defer { finished.update { $0 = true } }
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let server = try MockServer(serving: MockRegistry.current)
                var request = URLRequest(url: server.url("/user"))
                request.setValue("https://api.example.com/user", forHTTPHeaderField: "MockNetwork-Forwarded-URL")
                request.setValue("not-the-secret", forHTTPHeaderField: "MockNetwork-Forwarding-Secret")
                let session = plainSession()
                defer { session.finishTasksAndInvalidate() }
                let (_, response) = try await session.data(for: request)
                #expect((response as? HTTPURLResponse)?.statusCode == 403)
            }
        } matching: { issue in
            issue.messages.contains {
                $0.hasPrefix(
                    "MockServer: refused GET https://api.example.com/user, forwarded by an app with a secret that is "
                        + "not this server's")
            }
        }
    }

    @Test func aServedRequestStillOpenWhenTheScopeEndsIsAnIssueOfTheTest() async throws {
        let test = try #require(Test.current)
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 30, "a served request open at the end of a .mockNetwork scope")
        defer { finished.update { $0 = true } }
        let client = Shared<RawHTTPClient?>(nil)
        defer { client.current?.close() }
        // Kept past the scope: a server released at the end of the body closes its connections.
        let kept = Shared<MockServer?>(nil)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 30) }
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                kept.update { $0 = server }
                let raw = try RawHTTPClient(port: server.port)
                client.update { $0 = raw }
                #expect(raw.send("GET /slow HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
                _ = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: 10)
            }
        } matching: { issue in
            issue.messages.contains {
                $0.hasPrefix(
                    "MockNetwork: 1 request was still in flight when the test ended: GET https://api.example.com/slow.")
            }
        }
    }

    @Test func aServedHandlersOwnExpectationFailsThisTest() async throws {
        let test = try #require(Test.current)
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 30, "a served handler's #expect under the .mockNetwork trait")
        defer { finished.update { $0 = true } }
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register("https://api.example.com/orders") { request in
                    #expect(request.httpMethod == "POST", "orders are created with POST (served)")
                    return .status(201)
                }
                mocks.register("https://api.example.com/orders/7") { request async throws -> MockResponse in
                    await Task.yield()
                    #expect(request.httpMethod == "DELETE", "orders are deleted with DELETE (served, async)")
                    return .status(204)
                }
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                let session = plainSession()
                defer { session.finishTasksAndInvalidate() }
                let (_, created) = try await session.data(from: server.url("/orders"))
                let (_, deleted) = try await session.data(from: server.url("/orders/7"))
                #expect((created as? HTTPURLResponse)?.statusCode == 201)
                #expect((deleted as? HTTPURLResponse)?.statusCode == 204)
            }
        } matching: { issue in
            issue.messages == ["orders are created with POST (served)"]
                || issue.messages == ["orders are deleted with DELETE (served, async)"]
        }
    }
}
