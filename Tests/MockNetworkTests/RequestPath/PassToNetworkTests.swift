import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `Unmatched.passToNetwork` sends what no handler answers to the real server.
final class PassToNetworkTests: XCTestCase {
    func testUnmatchedRequestsReachTheServerAndHandlersStillAnswer() async throws {
        let server = try LoopbackServer(
            routes: ["PUT /live?x=1": .init(status: 202, headers: [("X-Live", "yes")], text: "from the server")],
            maxRequests: 4)
        defer { server.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork)
        let live = try XCTUnwrap(server.url("/live?x=1")).absoluteString
        mocks.register("https://api.example.com/stubbed") { _ in .text("stubbed") }

        let stubbed = try await send(mocks.session, "GET", "https://api.example.com/stubbed")
        XCTAssertEqual(String(decoding: stubbed.body, as: UTF8.self), "stubbed")
        let reply = try await send(mocks.session, "PUT", live, body: Data("payload".utf8))
        XCTAssertEqual(reply.status, 202)
        XCTAssertEqual(reply.response.value(forHTTPHeaderField: "X-Live"), "yes")
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "from the server")
        XCTAssertEqual(server.received.map(\.method), ["PUT"])
        XCTAssertEqual(server.received.first?.body, Data("payload".utf8))
        XCTAssertEqual(mocks.requests.count, 2, "requests passed on are logged too")
        XCTAssertEqual(mocks.failures, [])
        let again = try await send(mocks.session, "GET", "https://api.example.com/stubbed")
        XCTAssertNil(again.response.value(forHTTPHeaderField: "X-Live"))
    }

    /// `.passToNetwork(hosts:)` lets through the hosts it names (a `*` pattern too); any other
    /// unmatched request fails as under `.fail`, its report naming the hosts let through.
    func testOnlyTheNamedHostsReachTheNetwork() async throws {
        let server = try LoopbackServer(routes: ["GET /live": .init(text: "from the server")], maxRequests: 4)
        defer { server.stop() }
        let live = try XCTUnwrap(server.url("/live")).absoluteString
        for hosts in [["auth.example.com", "127.0.0.1"], ["127.0.0.*"]] {
            let mocks = MockRegistry(unmatched: .passToNetwork(hosts: hosts))
            let reply = try await send(mocks.session, "GET", live)
            XCTAssertEqual(reply.text, "from the server", "\(hosts)")
            let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/other") }
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
            let quoted = hosts.map { "\"\($0)\"" }.joined(separator: ", ")
            XCTAssertEqual(
                mocks.failures.first?.message.split(separator: "\n").prefix(2),
                [
                    "MockNetwork: no handler for GET https://api.example.com/other.",
                    "It did not go to the network: its host api.example.com is not one of passToNetwork(hosts: \(quoted)).",
                ])
        }
        XCTAssertEqual(server.received.count, 2)

        // Naming no host lets none through.
        let none = MockRegistry(unmatched: .passToNetwork(hosts: []))
        _ = try? await send(none.session, "GET", live)
        XCTAssertEqual(server.received.count, 2)
        XCTAssertEqual(none.failures.count, 1)
    }

    /// Every hop of a request let through is held to the same hosts: a redirect to a host the rule
    /// does not name is not followed, and the test fails saying so.
    func testARedirectToAHostNotNamedIsNotFollowed() async throws {
        let elsewhere = try LoopbackServer(routes: ["GET /elsewhere": .init(text: "escaped")], maxRequests: 2)
        defer { elsewhere.stop() }
        let port = try XCTUnwrap(elsewhere.url("/")?.port)
        let target = "http://localhost:\(port)/elsewhere"
        let named = try LoopbackServer(
            routes: ["GET /start": .init(status: 302, headers: [("Location", target)], text: "moved")], maxRequests: 2)
        defer { named.stop() }
        let start = try XCTUnwrap(named.url("/start")).absoluteString
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))

        let reply = try await send(mocks.session, "GET", start)

        XCTAssertEqual(reply.status, 302)
        XCTAssertEqual(named.received.map(\.target), ["/start"])
        XCTAssertEqual(elsewhere.received.count, 0, "the redirect reached a host the rule does not name")
        XCTAssertEqual(
            mocks.failures.map(\.message),
            [
                "MockNetwork: GET \(start) went to the network, which redirected it to \(target), whose host localhost "
                    + "is not one of passToNetwork(hosts: \"127.0.0.1\"). The redirect was not followed: the client got "
                    + "it as it was.\nFix: register a handler for \(target), or name its host in passToNetwork(hosts:)."
            ])

        // A host the rule names is followed as before.
        let open = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1", "localhost"]))
        let followed = try await send(open.session, "GET", start)
        XCTAssertEqual(followed.text, "escaped")
        XCTAssertEqual(open.failures, [])
    }

    /// Cancelling a request while the server is still answering it cancels the request MockNetwork
    /// made for it. (`stopLoading` runs on Foundation's queue; cancelling a task from there must not
    /// wait for that queue.)
    func testCancellingARequestPassedToTheServerEndsIt() async throws {
        let server = try LoopbackServer(routes: ["GET /slow": .init(text: "late", delay: 2)], maxRequests: 2)
        defer { server.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork)
        let slow = try XCTUnwrap(server.url("/slow"))
        let finished = expectation(description: "completion")
        let outcome = Shared<(any Error)?>(nil)
        // A regression deadlocks Foundation's queue, and with it every later request: end the run then.
        let completed = Shared(false)
        let task = mocks.session.dataTask(with: slow) { _, _, error in
            outcome.update { $0 = error }
            completed.update { $0 = true }
            finished.fulfill()
        }
        task.resume()
        try await withWatchdog(10) {
            for _ in 0..<1_000 where server.received.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        }
        XCTAssertEqual(server.received.map(\.target), ["/slow"])
        let cancelledAt = Date()
        endRunUnlessFinished(completed, within: 20, "cancelling a request passed to the server")
        task.cancel()
        await fulfillment(of: [finished], timeout: 5)
        XCTAssertEqual((outcome.current as? URLError)?.code, .cancelled)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1, "ended at the cancel, not when the server answered")
    }
}
