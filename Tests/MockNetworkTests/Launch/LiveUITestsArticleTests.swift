import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import XCTest

// The UI tests article's live snippets, as written, against `FeedApp`, which stands in for
// `XCUIApplication` on Linux (`let app = FeedApp()` here is `let app = XCUIApplication()` there).
final class FeedUITests: XCTestCase {
    @MainActor
    func testTheSpinnerShowsUntilTheFeedArrives() async throws {
        let mocks = MockRegistry()
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let feed = mocks.hold("https://api.example.com/feed")

        let app = FeedApp()
        app.launchEnvironment.mockNetwork(server: server)
        app.launch()

        _ = try await feed.arrived()  // the app asked for the feed
        XCTAssertTrue(app.activityIndicators["loading"].exists)
        feed.release(with: .json(#"["Hello"]"#))
        let hello = app.staticTexts["Hello"]
        XCTAssertTrue(hello.waitForExistence(timeout: 5))
        XCTAssertEqual(mocks.failures, [])
    }
}

/// The article's second snippet: a handler changed while the app runs, and a request awaited.
final class FeedLiveUITests: XCTestCase {
    @MainActor
    func testARefreshGetsTheNewAnswerAndALikeIsAwaited() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/feed") { _ in .json(#"["Hello"]"#) }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = FeedApp()
        app.launchEnvironment.mockNetwork(server: server)
        app.launch()
        XCTAssertTrue(app.staticTexts["Hello"].waitForExistence(timeout: 5))

        // The next refresh gets another answer:
        mocks.register("https://api.example.com/feed") { _ in
            .json(#"["Hello", "Again"]"#)
        }
        app.buttons["Refresh"].tap()
        XCTAssertTrue(app.staticTexts["Again"].waitForExistence(timeout: 5))

        // What the app sends, awaited as in a unit test:
        let likes = "https://api.example.com/likes"
        mocks.register(.url(likes), answer: .status(204))
        app.buttons["Like"].tap()
        let like = try await mocks.nextRequest(matching: .url(likes))
        XCTAssertEqual(like.bodyText, #"{"item":"Hello"}"#)

        XCTAssertEqual(mocks.requests.count, 3)
        XCTAssertEqual(mocks.failures, [])
    }
}

/// The live section of `UITests.md` shows the code of this file (`FeedApp()` read as
/// `XCUIApplication()`), in lines that fit DocC's code box.
final class LiveUITestsArticleTests: XCTestCase {
    func testTheLiveSnippetsAreTheCodeOfThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/MockNetworkApp/MockNetworkApp.docc/UITests.md"),
            encoding: .utf8)
        let live = try XCTUnwrap(article.components(separatedBy: "## Live handlers").dropFirst().first)
        let section = live.components(separatedBy: "\n## ").first ?? live
        let source = code(try String(contentsOf: here, encoding: .utf8).components(separatedBy: "\n"))
            .map { $0.replacingOccurrences(of: "FeedApp()", with: "XCUIApplication()") }
        let blocks = swiftBlocks(in: section)
        XCTAssertEqual(blocks.count, 2)
        for block in blocks {
            let lines = code(block)
            let found = (0...max(0, source.count - lines.count)).contains {
                Array(source[$0..<$0 + lines.count]) == lines
            }
            XCTAssertTrue(found, "a live snippet that is not the code of this file:\n\(block.joined(separator: "\n"))")
            for line in block where line.count > 74 {
                XCTAssertLessThanOrEqual(line.count, 74, "too wide for DocC's code box: \(line)")
            }
        }
    }

    /// `lines` trimmed, without blank lines and lines that are only a comment.
    private func code(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
    }
}
