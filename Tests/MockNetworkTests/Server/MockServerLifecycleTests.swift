import Foundation
import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server serving a `MockNetworkTestCase`'s registry stops with the test: its port is closed once
/// `tearDown` has reported the test's failures, among them a served request no handler matched, at
/// the registration nearest to it.
final class MockServerLifecycleTests: FailureCapturingTestCase {
    /// Kept past the test's end, so only the end of the test can stop it.
    private var server: MockServer?

    /// The line of the registration an unmatched request's failure points at.
    private var nearestLine: Int?

    /// The client of a served request the test leaves open, closed once the test has ended.
    private var openClient: RawHTTPClient?

    override func tearDown() {
        capturing = true
        super.tearDown()
        capturing = false
        if let openClient {
            XCTAssertEqual(captured.count, 1, "\(captured)")
            XCTAssertTrue(
                captured.first?.hasPrefix(
                    "MockNetwork: 1 request was still in flight when the test ended: GET https://api.example.com/slow. "
                        + "Await every request (or cancel it) before the test returns; delayed responses and bodies still arriving keep a "
                        + "request open.") == true, "\(captured)")
            openClient.close()
        } else if let nearestLine {
            XCTAssertEqual(captured.count, 1, "\(captured)")
            XCTAssertTrue(
                captured.first?.contains("no handler for GET https://api.example.com/pings") == true, "\(captured)")
            XCTAssertEqual(capturedAt.first??.line, nearestLine, "reported at the user's line")
        } else {
            XCTAssertEqual(captured, [])
        }
        guard let port = server?.port else { return }
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 20, "checking the port after tearDown")
        XCTAssertThrowsError(try RawHTTPClient(port: port), "the server stopped with the test")
        finished.update { $0 = true }
    }

    func testAServerOfTheTestsRegistryStopsWithTheTest() async throws {
        register("https://api.example.com/ping") { _ in .text("pong") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        self.server = server
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let (data, _) = try await session.data(from: server.url("/ping"))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "pong")
        }
        XCTAssertEqual(mocks.requests.count, 1)
    }

    func testAnUnmatchedServedRequestIsReportedAtTearDownAtTheNearestRegistration() async throws {
        nearestLine = #line + 1
        register("https://api.example.com/ping") { _ in .text("pong") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        self.server = server
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let (_, response) = try await session.data(from: server.url("/pings"))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 404)
        }
    }

    func testAServedRequestStillOpenWhenTheTestEndsIsReported() async throws {
        register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 30) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        self.server = server
        let client = try RawHTTPClient(port: server.port)
        openClient = client
        XCTAssertTrue(client.send("GET /slow HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
        // It reached the registry; its answer is 30 s away when the test ends.
        _ = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: 10)
    }

    func testAServerReleasedBeforeTheTestEndsIsNotKeptAlive() throws {
        weak var released: MockServer?
        do {
            let server = try MockServer(serving: mocks)
            released = server
        }
        XCTAssertNil(released, "the registry keeps no strong reference to the server")
    }
}
