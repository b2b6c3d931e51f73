// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetworkTesting
    import XCTest
    import MockNetworkApp

    /// The README's MockNetworkApp snippet, its test side as written, against the demo: on Linux there
    /// is no `XCUIApplication`, so `DemoApp` stands in for it, launching the built `CatBreedsDemo`.
    final class UITestsReadmeTests: XCTestCase {
        func testTheReadmeSnippetShowsTheEmptyScenarioAndReadsTheReport() throws {
            guard DemoProcess.demo != nil else { throw XCTSkip("CatBreedsDemo is not built next to the tests") }
            let app = DemoApp()  // the README: `let app = XCUIApplication()`
            app.launchEnvironment.mockNetwork(scenario: "empty")  // Fixtures/empty/ in the app's bundle
            app.launch()
            XCTAssertTrue(app.staticTexts["no breeds"].waitForExistence(timeout: 5))  // the screen first,
            let report = try app.launchEnvironment.mockNetworkReport()  // then what the app's mocks saw
            XCTAssertTrue(report.unmatched.isEmpty)
            XCTAssertEqual(report.requests.map(\.url), ["https://cats.example.com/breeds.json"])
            XCTAssertEqual(app.output, "== empty ==\nno breeds\n")
        }
    }

    /// What the snippet uses of `XCUIApplication`, for the demo run as a process.
    final class DemoApp {
        /// A text on the demo's screen, as `XCUIElement` for a static text.
        struct Text {
            let exists: Bool
            /// The demo has ended when this is asked: its screen is all there is.
            func waitForExistence(timeout: TimeInterval) -> Bool { exists }
        }

        /// As `XCUIApplication.staticTexts`: a text is there when the demo printed it on a line.
        struct Texts {
            let lines: [String]
            subscript(label: String) -> Text { Text(exists: lines.contains(label)) }
        }

        /// As `XCUIApplication.launchEnvironment`; starts from this process's, without MockNetwork's variables.
        var launchEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKNETWORK_") }
        /// What the demo printed.
        private(set) var output = ""

        var staticTexts: Texts { Texts(lines: output.split(separator: "\n").map(String.init)) }

        /// Runs the demo to its end; a failure to run it fails the test.
        func launch(file: StaticString = #filePath, line: UInt = #line) {
            guard let demo = DemoProcess.demo else {
                XCTFail("CatBreedsDemo is not built", file: file, line: line)
                return
            }
            do {
                let run = try DemoProcess.run(demo, environment: launchEnvironment)
                XCTAssertEqual(run.status, 0, run.errors, file: file, line: line)
                output = run.output
            } catch {
                XCTFail("\(error)", file: file, line: line)
            }
        }
    }
#endif
