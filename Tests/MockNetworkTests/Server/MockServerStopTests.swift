import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server stopped (or released) while it answers a request cuts that answer short, and the test
/// that owns the registry is told, as it is of a request still open when the test ends: a test
/// that stops its server with `defer` does not pass over a request it never awaited. The failure
/// comes once the connection has closed (its client may be hanging up just then): the end of a
/// test waits for it, as `awaitSettledFailures()` does here.
final class MockServerStopTests: XCTestCase {
    private static let cutShort = "MockNetwork: the MockServer stopped while GET https://api.example.com/"

    func testStoppingWhileAHeldRequestWaitsIsAFailureOfTheRegistry() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/feed")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try RawHTTPClient(port: server.port)
        defer { client.close() }
        try await withWatchdog(20) {
            XCTAssertTrue(client.send("GET /feed HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
            _ = try await gate.arrived()
        }
        server.stop()
        let failures = try await withWatchdog(20) { await mocks.awaitSettledFailures().map(\.message) }
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(
            failures.first?.hasPrefix(Self.cutShort + "feed was in flight, cutting its answer short.") == true)
        XCTAssertTrue(client.waitForClose(), "the connection closed")
    }

    func testReleasingTheServerWhileADelayedAnswerWaitsIsAFailureToo() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 30) }
        var server: MockServer? = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try RawHTTPClient(port: try XCTUnwrap(server?.port))
        defer { client.close() }
        try await withWatchdog(20) {
            XCTAssertTrue(client.send("GET /slow HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
            _ = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: 10)
        }
        server = nil
        XCTAssertNil(server)
        let failures = try await withWatchdog(20) { await mocks.awaitSettledFailures().map(\.message) }
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(failures.first?.hasPrefix(Self.cutShort + "slow was in flight") == true, "\(failures)")
    }

    func testStoppingAfterEveryAnswerEndedIsNoFailure() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/ping") { _ in .text("pong") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        try await withWatchdog(20) {
            let (response, body) = try await fetchText(URLRequest(url: server.url("/ping")))
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(body, "pong")
        }
        server.stop()
        XCTAssertEqual(mocks.takeFailures(), [])
    }

    func testARequestLetThroughToTheServersOwnAddressIsRefusedNotLooped() async throws {
        // No origin: a request's URL is the server's own, and the registry lets 127.0.0.1 through to
        // the network, which would be the server again.
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let (response, body) = try await withWatchdog(20) { try await fetchText(URLRequest(url: server.url("/x"))) }
        XCTAssertEqual(response.statusCode, 404)
        XCTAssertTrue(body.contains("the MockServer's own address: it would come back to the server"), body)
        XCTAssertEqual(mocks.requests.count, 1, "it went round no more than once")
        let failures = mocks.takeFailures().map(\.message)
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(
            failures.first?.hasPrefix(
                "MockNetwork: GET \(server.url("/x").absoluteString) matched no handler, and the registry lets it through to the network"
            ) == true, "\(failures)")
    }
}
