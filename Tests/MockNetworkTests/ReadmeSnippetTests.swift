import Foundation
import MockNetwork
import MockNetworkTesting
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's first screen and its everyday cases, as they are written there (ReadmeTests checks
// them line for line): they compile here, and run. The clients are what the README leaves out.

/// The first screen's client: the hound images of dog.ceo.
private struct DogAPI {
    let session: URLSession

    private struct Images: Decodable {
        let message: [URL]
    }

    func houndImages() async throws -> [URL] {
        var request = URLRequest(url: URL(string: "https://dog.ceo/api/breed/hound/images")!)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, _) = try await session.data(for: request)
        return try JSONDecoder().decode(Images.self, from: data).message
    }
}

/// What the feed client throws for a status it knows.
enum FeedError: Error, Equatable {
    case signedOut
}

/// The README's feed client: a bearer token, a JSON feed, 401 as `FeedError.signedOut`.
struct FeedClient {
    struct Feed: Decodable {
        let items: [String]
    }

    let session: URLSession
    let token: String

    func feed() async throws -> Feed {
        var request = URLRequest(url: URL(string: "https://api.example.com/feed")!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        if (response as? HTTPURLResponse)?.statusCode == 401 { throw FeedError.signedOut }
        return try JSONDecoder().decode(Feed.self, from: data)
    }
}

// README: the first screen
final class DogAPITests: MockNetworkTestCase {
    func testFetchesHoundImages() async throws {
        let api = DogAPI(session: session)  // `session` comes from the base class
        register("https://dog.ceo/api/breed/hound/images") { request in
            XCTAssertEqual(request.httpMethod, "GET")  // assert on the request inside the handler
            return .json(#"{"message": ["https://images.dog.ceo/a.jpg"], "status": "success"}"#)
        }
        let images = try await api.houndImages()
        XCTAssertEqual(images.count, 1)
    }
}

// README: the first screen, a handler and the test's fixture
final class ProfileTests: MockNetworkTestCase {
    let user = #"{"name": "Ada"}"#  // a fixture of the test case

    func testAHandlerUsesTheTestsFixtureThroughACaptureList() async throws {
        register("https://api.example.com/user") { [user] _ in .json(user) }  // the value, not self
    }
}

// README: the first screen, Swift Testing
@Suite(.mockNetwork)
struct FeedTests {
    @Test func loadsFeed() async throws {
        let mocks = MockRegistry.current  // this test's registry and session
        mocks.register("https://api.example.com/feed") { request in
            #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
            return .json(#"{"items": ["a", "b"]}"#)
        }
        let feed = try await FeedClient(session: mocks.session, token: "t").feed()
        #expect(feed.items.count == 2)
    }
}

// README: The everyday cases
@Suite(.mockNetwork)
struct FeedClientTests {
    let mocks = MockRegistry.current  // in init: Swift Testing makes the suite anew for each test
    let client: FeedClient
    init() { client = FeedClient(session: mocks.session, token: "t") }

    @Test func emptyFeed() async throws {
        mocks.register("https://api.example.com/feed") { _ in .json(#"{"items": []}"#) }
        #expect(try await client.feed().items.isEmpty)
        #expect(mocks.requests.count == 1)  // every request, in order
        #expect(mocks.requests[0].header("Authorization") == "Bearer t")
    }

    @Test func malformedFeed() async throws {
        mocks.register("https://api.example.com/feed") { _ in .json(#"{"items": "#) }  // as it is
        await #expect(throws: DecodingError.self) { try await client.feed() }
    }

    @Test func signedOut() async throws {
        mocks.register("https://api.example.com/feed") { _ in .status(401) }
        await #expect(throws: FeedError.signedOut) { try await client.feed() }
    }

    @Test func offline() async throws {
        mocks.register("https://api.example.com/feed") { _ in .failure(.notConnectedToInternet) }
        let error = await #expect(throws: URLError.self) { try await client.feed() }
        #expect(error?.code == .notConnectedToInternet)
    }
}
// (end of snippet)

/// What the README says of the suite above: `init` runs inside the trait's scope, once per test,
/// so each test's registry is its own and the session in `init` is that registry's.
@Suite(.mockNetwork)
struct ReadmeSuiteInitTests {
    let mocks = MockRegistry.current
    let session: URLSession
    init() { session = mocks.session }

    @Test(arguments: 0..<4)
    func initReadsTheTestsOwnRegistry(index: Int) async throws {
        #expect(mocks === MockRegistry.current)
        #expect(mocks.registered == [])
        mocks.register("https://api.example.com/case") { _ in .text("case \(index)") }
        let (data, _) = try await session.data(from: URL(string: "https://api.example.com/case")!)
        #expect(String(decoding: data, as: UTF8.self) == "case \(index)")
    }
}
