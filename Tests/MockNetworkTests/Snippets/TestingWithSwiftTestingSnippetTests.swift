import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of TestingWithSwiftTesting.md, as written there (ArticleSnippetTests checks them):
// they compile here, and run. Other tests of this target have a `FeedTests` and a `BannerTests`, so
// these are in a namespace; the feed client is the README's (`ReadmeSnippetTests`).

enum TestingWithSwiftTestingSnippets {
    // TestingWithSwiftTesting.md: Overview
    @Suite(.mockNetwork)
    struct FeedTests {
        @Test func loadsFeed() async throws {
            let mocks = MockRegistry.current
            mocks.register("https://api.example.com/feed") { request in
                let auth = request.value(forHTTPHeaderField: "Authorization")
                #expect(auth == "Bearer t")
                return .json(#"{"items": ["a", "b"]}"#)
            }
            let client = FeedClient(session: mocks.session, token: "t")
            let feed = try await client.feed()
            #expect(feed.items.count == 2)
        }

        @Test(arguments: ["en", "de"])
        func localizedFeed(language: String) async throws {
            let mocks = MockRegistry.current  // a registry for this case alone
            let feed = "https://api.example.com/feed?lang=\(language)"
            mocks.register(.url(feed)) { _ in
                .json("{\"items\": []}")
            }
            // …
        }
    }
    // (end of snippet)

    // TestingWithSwiftTesting.md: Defaults every test starts with
    // swift-format-ignore
    @Suite(.mockNetwork(defaults: { mocks in
        mocks.register("https://api.example.com/flags") { _ in
            .json(#"{"beta": false}"#)
        }
    }))
    struct BannerTests { }
    // (end of snippet)
}

extension TestingWithSwiftTestingSnippets.FeedTests {
    /// Each case of the parameterized test has a registry of its own, and starts with no handlers.
    @Test(arguments: ["en", "de"])
    func eachCaseHasItsOwnRegistry(language: String) async throws {
        let mocks = MockRegistry.current
        #expect(mocks.registered == [])
        let feed = "https://api.example.com/feed?lang=\(language)"
        mocks.register(.url(feed)) { _ in .json("{\"items\": []}") }
        let (data, _) = try await mocks.session.data(from: URL(string: feed)!)
        #expect(String(decoding: data, as: UTF8.self) == #"{"items": []}"#)
    }
}

extension TestingWithSwiftTestingSnippets.BannerTests {
    /// A test of the suite starts with the suite's defaults.
    @Test func startsWithTheSuitesDefaults() async throws {
        let mocks = MockRegistry.current
        let (data, _) = try await mocks.session.data(from: URL(string: "https://api.example.com/flags")!)
        #expect(String(decoding: data, as: UTF8.self) == #"{"beta": false}"#)
    }

    /// A test's own registration wins for the requests it matches.
    @Test func aTestsOwnHandlerWins() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }
        let (data, _) = try await mocks.session.data(from: URL(string: "https://api.example.com/flags")!)
        #expect(String(decoding: data, as: UTF8.self) == #"{"beta": true}"#)
    }
}
