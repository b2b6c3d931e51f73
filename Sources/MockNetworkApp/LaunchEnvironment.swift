import Foundation
import MockNetwork
import MockNetworkArchives

/// A UI test's side of the app's mocks: what to put in the app's launch environment, and reading
/// back what the app's mocks saw (`MockLaunchReport`). `XCUIApplication.launchEnvironment` is a
/// `[String: String]`, so these work on it as on any environment, for a process of your own too.
///
/// ```swift
/// let app = XCUIApplication()
/// app.launchEnvironment.mockNetwork(scenario: "empty")
/// app.launch()
/// XCTAssertTrue(app.staticTexts["no breeds"].waitForExistence(timeout: 5))  // the screen first
/// let report = try app.launchEnvironment.mockNetworkReport()
/// XCTAssertTrue(report.unmatched.isEmpty)
/// ```
extension Dictionary where Key == String, Value == String {
    /// Asks the app launched with this environment to answer from the stub variant `scenario`
    /// (a folder of its bundle, e.g. `Fixtures/empty/`) and to write a report of what it saw.
    ///
    /// - Parameters:
    ///   - scenario: the variant's folder name, e.g. `"empty"`.
    ///   - report: where the app writes its report; a new file in the temporary folder unless given
    ///     (or unless an earlier call chose one). A report left there by an earlier launch is removed.
    public mutating func mockNetwork(scenario: String, report: URL? = nil) {
        self[LaunchSettings.scenarioVariable] = scenario
        chooseReport(report)
    }

    /// Asks the app launched with this environment to answer from the HAR archive `archive` (a name
    /// in its bundle, such as `"checkout-happy"` for `Archives/checkout-happy.har`, or a path), and to
    /// write a report of what it saw.
    ///
    /// - Parameters:
    ///   - archive: a name in the app's bundle, or the path of a `.har` file (any value with a `/`).
    ///   - recording: `.once`, `.rewrite` or `.missing` to record the app's real traffic into the
    ///     file at the path `archive` names; `.never` to only replay. Unless given, the test's own
    ///     `MOCKNETWORK_RECORD` is passed on (so `MOCKNETWORK_RECORD=once` on the test run records).
    ///   - report: where the app writes its report; a new file in the temporary folder unless given
    ///     (or unless an earlier call chose one). A report left there by an earlier launch is removed.
    public mutating func mockNetwork(archive: String, recording: HTTPArchive.RecordMode? = nil, report: URL? = nil) {
        self[LaunchSettings.archiveVariable] = archive
        let variable = HTTPArchive.RecordMode.environmentVariable
        if let recording {
            self[variable] = recording.rawValue
        } else if let inherited = ProcessInfo.processInfo.environment[variable] {
            self[variable] = inherited
        }
        chooseReport(report)
    }

    /// The file the app writes its report to, once `mockNetwork(scenario:)` or
    /// `mockNetwork(archive:)` chose it.
    public var mockNetworkReportFile: URL? {
        self[LaunchSettings.reportVariable].map { URL(fileURLWithPath: $0) }
    }

    /// What the mocks of the app launched with this environment saw: read from its report, after
    /// the app exits or while it runs.
    ///
    /// The app writes the report within a few milliseconds of every change. This waits until the
    /// report exists, no request is waiting for its answer, and `condition` holds (a condition of
    /// your own adds to "nothing in flight", never replaces it), then returns it; after `timeout`
    /// seconds it returns the report as it is. To wait for a point in a flow, say what it is:
    /// `mockNetworkReport { $0.requests.count == 2 }`.
    ///
    /// - Throws: `MockLaunchError.launchFailed` when the app's mocks failed at launch (the
    ///   scenario or archive named does not exist, say), `MockLaunchError.reportNotWritten`
    ///   when no report came, `MockLaunchError.noReportPath` when this environment names no report.
    public func mockNetworkReport(
        timeout: TimeInterval = 5, until condition: (MockLaunchReport) -> Bool = { _ in true }
    ) throws -> MockLaunchReport {
        guard let file = mockNetworkReportFile else { throw MockLaunchError.noReportPath }
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if FileManager.default.fileExists(atPath: file.path) {
                let report = try MockLaunchReport(contentsOf: file)
                if let error = report.launchError { throw MockLaunchError.launchFailed(error) }
                if (report.inFlight == 0 && condition(report)) || Date() >= deadline { return report }
            } else if Date() >= deadline {
                throw MockLaunchError.reportNotWritten(path: file.path, timeout: timeout)
            }
            // The app writes the report within 20 ms of a change: look again at that pace.
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Sets the report's file: `report`, else the one already chosen, else a new temporary file.
    private mutating func chooseReport(_ report: URL?) {
        let file: URL
        if let given = report ?? mockNetworkReportFile {
            file = given
        } else {
            // MockNetwork's own choice: removed when the test process exits, unless it reports a failure.
            file = FileManager.default.temporaryDirectory.appendingPathComponent(
                "MockNetwork-launch-\(UUID().uuidString).json")
            LaunchFiles.note(file)
        }
        try? FileManager.default.removeItem(at: file)
        self[LaunchSettings.reportVariable] = file.path
    }
}
