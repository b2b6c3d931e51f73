// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetworkTesting
    import Testing

    /// The README's "UI tests" snippet, its test side as written, against the demo: on Linux there is
    /// no `XCUIApplication`, so `DemoApp` stands in for it, launching the built `CatBreedsDemo`.
    @Test(.enabled(if: DemoProcess.demo != nil, "CatBreedsDemo is built next to the tests"))
    func readmeUITestSnippetShowsTheEmptyScenarioAndReadsTheReport() throws {
        let app = DemoApp()  // the README: `let app = XCUIApplication()`
        app.launchEnvironment.mockNetwork(scenario: "empty")  // Fixtures/empty/ in the app's bundle
        app.launch()
        let report = try app.mockNetworkReport()  // what the app's mocks saw
        #expect(report.unmatched.isEmpty)
        #expect(report.requests.map(\.url) == ["https://cats.example.com/breeds.json"])
        #expect(app.output == "== empty ==\nno breeds\n")
    }

    /// What the snippet uses of `XCUIApplication`, for the demo run as a process.
    final class DemoApp {
        /// As `XCUIApplication.launchEnvironment`; starts from this process's, without MockNetwork's variables.
        var launchEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MOCKNETWORK_") }
        /// What the demo printed.
        private(set) var output = ""

        /// Runs the demo to its end; a failure to run it is an issue of the test.
        func launch() {
            guard let demo = DemoProcess.demo else {
                Issue.record("CatBreedsDemo is not built")
                return
            }
            do {
                let run = try DemoProcess.run(demo, environment: launchEnvironment)
                #expect(run.status == 0, "\(run.errors)")
                output = run.output
            } catch {
                Issue.record(error)
            }
        }

        /// As `XCUIApplication.mockNetworkReport()` in MockNetworkTesting.
        func mockNetworkReport() throws -> MockLaunchReport {
            try launchEnvironment.mockNetworkReport()
        }
    }
#endif
