import Foundation
import MockNetwork
import MockNetworkTesting
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of MockNetworkTesting.md (the MockNetworkTesting catalog's front page), as written
// there (ArticleSnippetTests checks them): they compile here, and run. `ReadmeSnippetTests` has a
// `FeedTests` and a `FeedClient` (one that sends a token), so these are in a namespace, or declared
// inside a test (see `runLocalTests`).

enum MockNetworkTestingSnippets {
    /// The article's feed client: a JSON feed, no token.
    struct FeedClient {
        struct Feed: Decodable {
            let items: [String]
        }

        let session: URLSession

        func feed() async throws -> Feed {
            let (data, _) = try await session.data(from: URL(string: "https://api.example.com/feed")!)
            return try JSONDecoder().decode(Feed.self, from: data)
        }
    }

    // MockNetworkTesting.md: Overview (Swift Testing)
    @Suite(.mockNetwork)
    struct FeedTests {
        @Test func loadsFeed() async throws {
            let mocks = MockRegistry.current
            mocks.register("https://api.example.com/feed") { _ in
                .json(#"{"items": ["a", "b"]}"#)
            }
            let feed = try await FeedClient(session: mocks.session).feed()
            #expect(feed.items.count == 2)
        }
    }
    // (end of snippet)
}

final class MockNetworkTestingSnippetTests: XCTestCase {
    /// The overview's XCTest case passes.
    func testTheOverviewsTestCasePasses() throws {
        typealias FeedClient = MockNetworkTestingSnippets.FeedClient
        // MockNetworkTesting.md: Overview (XCTest)
        final class FeedTests: MockNetworkTestCase {
            func testLoadsFeed() async throws {
                register("https://api.example.com/feed") { _ in
                    .json(#"{"items": ["a", "b"]}"#)
                }
                let feed = try await FeedClient(session: session).feed()
                XCTAssertEqual(feed.items.count, 2)
            }
        }
        // (end of snippet)
        #if !canImport(ObjectiveC)
            runLocalTests(FeedTests.self, [("testLoadsFeed", asyncTest(FeedTests.testLoadsFeed))])
        #endif
    }
}
