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

    override func tearDown() {
        capturing = true
        super.tearDown()
        capturing = false
        if let nearestLine {
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
        register("https://api.example.com/ping") { _ in try .text("pong") }
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
        register("https://api.example.com/ping") { _ in try .text("pong") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        self.server = server
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let (_, response) = try await session.data(from: server.url("/pings"))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 404)
        }
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
