import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of SequencesDelaysAndCaching.md, as written there (ArticleSnippetTests checks it):
// it compiles here, and runs.

final class SequencesDelaysAndCachingSnippetTests: MockNetworkTestCase {
    func testTheOverviewsAnswersComeAsTheArticleSays() async throws {
        let feed = #"{"items": ["a", "b"]}"#
        let big = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0) })
        mocks.register("https://api.example.com/new") { _ in .text("new") }

        // SequencesDelaysAndCaching.md: Overview
        // A client that retries: 503, 503, then 200. A fourth request fails the test.
        mocks.register(.url("https://api.example.com/feed"), sequence: [.status(503), .status(503), .json(feed)])

        // Slow answers; a delay past the request's (or session's) timeout fails with URLError(.timedOut).
        mocks.register("https://api.example.com/slow") { _ in MockResponse.json(feed).delayed(by: 2) }

        // Redirects are followed (method and body rewritten for 301/302/303 as RFC 9110 says), up to 16.
        mocks.register("https://api.example.com/old") { _ in .redirect(to: "/new", status: 301) }
        mocks.register("https://api.example.com/raw302") { _ in
            MockResponse.redirect(to: "/new").followingRedirects(false)
        }

        // A body in pieces, for a session delegate that processes data as it arrives.
        mocks.register("https://api.example.com/big") { _ in MockResponse.data(big).chunked(into: 16_384) }

        // A body from a file in the test bundle (`.json` assumed without an extension).
        mocks.register("https://api.example.com/user") { _ in .fixture("user", in: .module) }
        // (end of snippet)

        var statuses: [Int] = []
        for _ in 0..<3 { statuses.append(try await send(session, "GET", "https://api.example.com/feed").status) }
        XCTAssertEqual(statuses, [503, 503, 200])

        let started = Date()
        let slow = try await send(session, "GET", "https://api.example.com/slow")
        XCTAssertEqual(slow.text, feed)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.9)

        let old = try await send(session, "GET", "https://api.example.com/old")
        XCTAssertEqual(old.status, 200)
        XCTAssertEqual(old.text, "new")
        XCTAssertEqual(old.response.url?.absoluteString, "https://api.example.com/new")
        let raw = try await send(session, "GET", "https://api.example.com/raw302")
        XCTAssertEqual(raw.status, 302)
        XCTAssertEqual(raw.response.value(forHTTPHeaderField: "Location"), "/new")

        let whole = try await send(session, "GET", "https://api.example.com/big")
        XCTAssertEqual(whole.body, big)

        let user = try await send(session, "GET", "https://api.example.com/user")
        let file = try XCTUnwrap(
            Bundle.module.url(forResource: "user", withExtension: "json", subdirectory: "Fixtures"))
        XCTAssertEqual(user.body, try Data(contentsOf: file))
    }
}
