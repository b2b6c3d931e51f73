import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's "Streams and time" snippets, and its note on a handler and the test's fixtures, as
// they are written there: they compile here, and run.

/// What the README's handlers await.
private actor Store {
    func user() -> [String: String] { ["name": "Ada"] }
}

/// The README's view model: loading state around one request.
@MainActor
private final class FeedModel {
    private(set) var isLoading = false
    private(set) var items: [String] = []
    private let session: URLSession

    init(session: URLSession) { self.session = session }

    func load() async throws {
        isLoading = true
        defer { isLoading = false }
        let (data, _) = try await session.data(from: URL(string: "https://api.example.com/feed")!)
        items = try JSONDecoder().decode([String].self, from: data)
    }

    func trackOpen() {
        var request = URLRequest(url: URL(string: "https://api.example.com/analytics")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"event":"open"}"#.utf8)
        session.dataTask(with: request).resume()
    }
}

final class StreamsReadmeTests: MockNetworkTestCase {
    /// A fixture of the test case: handlers capture its value, never `self`.
    let user = #"{"name": "Ada"}"#

    func testAHandlerUsesTheTestsFixtureThroughACaptureList() async throws {
        register("https://api.example.com/user") { [user] _ in .json(user) }

        let (data, _) = try await session.data(from: try url("https://api.example.com/user"))

        XCTAssertEqual(String(decoding: data, as: UTF8.self), user)
    }

    func testTheStreamsSnippetsAnswer() async throws {
        let store = Store()
        let (header, row1, row2) = (Data("id\n".utf8), Data("1\n".utf8), Data("2\n".utf8))
        let video = Data(count: 6_400)
        let large = Data(count: 4_096)

        // README: Streams and time
        mocks.register("https://api.example.com/user") { _ in .json(await store.user()) }
        mocks.register("https://api.example.com/v1/chat") { _ in
            .events(
                [.init(data: #"{"delta":"Hel"}"#), .init(data: #"{"delta":"lo"}"#), .init(event: "done", data: "")],
                every: .milliseconds(50))
        }
        mocks.register("https://api.example.com/export") { _ in
            .streamed([header, row1, row2], every: .milliseconds(20))
        }
        mocks.register("https://api.example.com/video") { _ in
            MockResponse.data(video).throttled(bytesPerSecond: 64_000)
        }
        mocks.register("https://api.example.com/large") { _ in
            MockResponse.data(large).failing(after: 1_024, with: URLError(.networkConnectionLost))
        }
        // (end of snippet)

        let user = try await session.data(from: try url("https://api.example.com/user")).0
        let chat = try await session.data(from: try url("https://api.example.com/v1/chat")).0
        let export = try await session.data(from: try url("https://api.example.com/export")).0
        let slow = try await session.data(from: try url("https://api.example.com/video")).0
        let lost = await thrownError { _ = try await self.session.data(from: try url("https://api.example.com/large")) }

        XCTAssertEqual(String(decoding: user, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertEqual(
            String(decoding: chat, as: UTF8.self),
            "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\nevent: done\ndata:\n\n")
        XCTAssertEqual(String(decoding: export, as: UTF8.self), "id\n1\n2\n")
        XCTAssertEqual(slow.count, 6_400)
        XCTAssertEqual((lost as? URLError)?.code, .networkConnectionLost)
    }

    func testTheReadmesEventsLineAnswers() async throws {
        // README: Streams and time (the article has the longer form above)
        mocks.register("https://api.example.com/v1/chat") { _ in
            .events([.init(data: #"{"delta":"Hel"}"#), .init(data: #"{"delta":"lo"}"#)], every: .milliseconds(50))
        }
        // (end of snippet)
        let chat = try await session.data(from: try url("https://api.example.com/v1/chat")).0
        XCTAssertEqual(
            String(decoding: chat, as: UTF8.self), "data: {\"delta\":\"Hel\"}\n\ndata: {\"delta\":\"lo\"}\n\n")
    }

    @MainActor
    func testTheHoldSnippetChecksTheLoadingStateWithoutASleep() async throws {
        let model = FeedModel(session: session)

        // README: hold
        let gate = mocks.hold("https://api.example.com/feed")
        let load = Task { try await model.load() }
        try await gate.arrived()  // the request reached MockNetwork
        XCTAssertTrue(model.isLoading)  // no sleep
        gate.release(with: .json(#"["a", "b"]"#))
        try await load.value
        XCTAssertFalse(model.isLoading)
        XCTAssertEqual(model.items, ["a", "b"])
        // (end of snippet)
    }

    @MainActor
    func testTheNextRequestSnippetSeesAFireAndForgetRequest() async throws {
        let model = FeedModel(session: session)
        register("https://api.example.com/analytics", method: "POST") { _ in .status(202) }

        // README: nextRequest
        model.trackOpen()  // fires a POST and does not wait for it
        let sent = try await mocks.nextRequest(matching: .url("https://api.example.com/analytics").method("POST"))
        XCTAssertEqual(sent.body, Data(#"{"event":"open"}"#.utf8))
        // (end of snippet)
    }
}
