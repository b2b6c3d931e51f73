import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `trafficReport()`: what a failing test's report attaches, redacted and bounded.
final class TrafficReportTests: XCTestCase {
    func testTheReportHoldsEachExchangeRedactedAndAnUnansweredOneAsStatusZero() async throws {
        let mocks = MockRegistry()
        XCTAssertNil(mocks.trafficReport(), "no request, no report")
        mocks.register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
        let held = mocks.hold(.url("https://api.example.com/slow"))
        _ = try await send(
            mocks.session, "POST", "https://api.example.com/user", headers: ["Authorization": "Bearer secret"],
            body: Data("hello".utf8))
        _ = try? await send(mocks.session, "GET", "https://api.example.com/missing")
        let slow = Task { try await send(mocks.session, "GET", "https://api.example.com/slow") }
        _ = try await held.arrived()

        let report = try XCTUnwrap(mocks.trafficReport())
        let archive = try HTTPArchive(json: report.json)
        XCTAssertEqual([report.count, report.omitted], [3, 0])
        XCTAssertEqual(
            archive.entries.map(\.request.url),
            [
                "https://api.example.com/user", "https://api.example.com/missing", "https://api.example.com/slow",
            ])
        XCTAssertEqual(archive.entries.map(\.response.status), [200, 0, 0])
        XCTAssertEqual(archive.entries[0].request.body?.text, "hello")
        XCTAssertEqual(archive.entries[0].response.body.text, #"{"name": "Ada"}"#)
        // Masked, not dropped: the report shows a token was sent, and never the token.
        XCTAssertEqual(
            archive.entries[0].request.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value),
            ["REDACTED"])
        XCTAssertFalse(String(decoding: report.json, as: UTF8.self).contains("secret"))
        XCTAssertEqual(archive.entries[2].error, "still unanswered when the test ended")
        held.release(with: .status(204))
        _ = try await slow.value
        _ = mocks.takeFailures()
    }

    /// The latest 100 requests; each body cut to 64 KB; earlier ones left out past 1 MB of bodies.
    func testTheReportIsBounded() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/n", query: .ignored)) { request in
            let small = request.url?.query == "small"
            return .text(String(repeating: "x", count: small ? 10 : 100_000))
        }
        for _ in 0..<150 { _ = try await send(mocks.session, "GET", "https://api.example.com/n?small") }
        let onlySmall = try XCTUnwrap(mocks.trafficReport())
        XCTAssertEqual([onlySmall.count, onlySmall.omitted], [100, 50])

        for _ in 0..<20 { _ = try await send(mocks.session, "GET", "https://api.example.com/n?big") }
        let withBig = try XCTUnwrap(mocks.trafficReport())
        let archive = try HTTPArchive(json: withBig.json)
        // 16 bodies of 64 KB make 1 MB exactly; a 17th would pass it.
        XCTAssertEqual([withBig.count, withBig.omitted], [16, 154])
        XCTAssertEqual(Set(archive.entries.map(\.response.body.data.count)), [65_536])
        XCTAssertLessThan(withBig.json.count, 2_000_000)
    }

    func testTheSettingIsOnByDefaultAndPerRegistry() {
        let (a, b) = (MockRegistry(), MockRegistry())
        b.attachesTrafficOnFailure = false
        XCTAssertEqual([a.attachesTrafficOnFailure, b.attachesTrafficOnFailure], [true, false])
    }
}
