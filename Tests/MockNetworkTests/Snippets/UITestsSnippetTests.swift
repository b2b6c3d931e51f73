import Foundation
import MockNetwork
import MockNetworkApp
import MockNetworkServer
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of UITests.md, as written there (ArticleSnippetTests checks them). Those that read
// the launch environment compile and run here, on `AppUnderTest`, which has what they use of
// `XCUIApplication`; those that make an `XCUIApplication` compile on Apple platforms only, below.
// The app's launch code the article opens with is in MockNetworkAppSnippetTests, and its live
// snippets in LiveUITestsArticleTests.

/// What these snippets use of `XCUIApplication`: the environment it launches the app with.
private struct AppUnderTest {
    var launchEnvironment: [String: String] = [:]
}

final class UITestsSnippetTests: XCTestCase {
    private let breedsURL = "https://cats.example.com/breeds.json"

    /// The report read in the middle of a flow, once the app has made the requests it waits for.
    func testTheReportIsReadOnceTheAppMadeTheRequestsWaitedFor() async throws {
        var app = AppUnderTest()
        app.launchEnvironment.mockNetwork(scenario: "standard")
        // The app's side, in this process: launched with that environment, it asks twice.
        let bundle = try temporaryBundle(self, files: ["Fixtures/standard/breeds.json": #"["Abyssinian"]"#])
        let launched = try MockRegistry.launched(
            stubs: [breedsURL: "breeds"], in: bundle, environment: app.launchEnvironment)
        let session = try XCTUnwrap(launched?.session)
        let first = try await send(session, "GET", breedsURL)
        let second = try await send(session, "GET", breedsURL)
        XCTAssertEqual([first.text, second.text], [#"["Abyssinian"]"#, #"["Abyssinian"]"#])

        // UITests.md: The report
        let report = try app.launchEnvironment.mockNetworkReport {
            $0.requests.count == 2
        }
        // (end of snippet)

        XCTAssertEqual(report.scenario, "standard")
        XCTAssertEqual(report.requests.map(\.url), [breedsURL, breedsURL])
        XCTAssertEqual(report.requests.map(\.status), [200, 200])
        XCTAssertEqual(report.unmatched, [])
    }

    /// Recording a flow: the launch environment names the archive's file in the source tree, and
    /// the mode.
    func testRecordingAFlowNamesTheFileInTheSourceTreeAndTheMode() {
        var app = AppUnderTest()

        // UITests.md: Recording a flow
        let archive = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Archives/checkout-happy.har").path
        app.launchEnvironment.mockNetwork(archive: archive, recording: .once)
        // (end of snippet)

        XCTAssertTrue(archive.hasSuffix("/Tests/MockNetworkTests/Snippets/Archives/checkout-happy.har"), archive)
        XCTAssertEqual(app.launchEnvironment["MOCKNETWORK_ARCHIVE"], archive)
        XCTAssertEqual(app.launchEnvironment["MOCKNETWORK_RECORD"], "once")
        XCTAssertNotNil(app.launchEnvironment["MOCKNETWORK_REPORT"])
    }
}

// `XCUIApplication` is XCTest's on Apple platforms (watchOS aside); Linux has none.
#if os(macOS) || os(iOS) || os(tvOS) || os(visionOS)
    // UITests.md: In the UI test
    final class BreedsUITests: XCTestCase {
        @MainActor
        func testEmptyListShowsTheEmptyState() throws {
            let app = XCUIApplication()
            // Fixtures/empty/ in the app's bundle:
            app.launchEnvironment.mockNetwork(scenario: "empty")
            app.launch()
            let screen = app.staticTexts["no breeds"]
            XCTAssertTrue(screen.waitForExistence(timeout: 5))

            // What the mocks saw:
            let report = try app.launchEnvironment.mockNetworkReport()
            XCTAssertEqual(report.unmatched, [])
            let urls = report.requests.map(\.url)
            XCTAssertEqual(urls, ["https://cats.example.com/breeds.json"])
        }

        // Not the article's: these tests launch an app, which needs a UI-testing bundle and an app
        // to test; this package's test target is a unit-test bundle with none, so they compile only.
        override func setUpWithError() throws {
            throw XCTSkip("a UI test: it needs a UI-testing bundle and an app, which this package has not")
        }

        @MainActor
        func testCheckoutAsRecorded() throws {
            let app = XCUIApplication()
            // checkout-happy.har in the app's bundle:
            app.launchEnvironment.mockNetwork(archive: "checkout-happy")
            app.launch()
            // … drive the flow …
        }
    }
    // (end of snippet)

    /// UITests.md's live test launches the app with the server in its environment (the rest of that
    /// snippet runs on Linux in LiveUITestsArticleTests, with a stand-in for the app).
    final class LiveUITestsSnippetTests: XCTestCase {
        override func setUpWithError() throws {
            throw XCTSkip("a UI test: it needs a UI-testing bundle and an app, which this package has not")
        }

        @MainActor
        func testTheAppIsLaunchedWithTheServersAddressAndSecret() async throws {
            let mocks = MockRegistry()
            let server = try MockServer(serving: mocks)
            defer { server.stop() }

            // UITests.md: Live handlers
            let app = XCUIApplication()
            app.launchEnvironment.mockNetwork(server: server)
            app.launch()
            // (end of snippet)

            XCTAssertEqual(app.launchEnvironment["MOCKNETWORK_SERVER"], server.launchEnvironment["MOCKNETWORK_SERVER"])
        }
    }
#endif
