import Foundation
import MockNetwork
import MockNetworkApp
import MockNetworkTesting
import XCTest

/// The UI test's side: what `mockNetwork(scenario:)` and `mockNetwork(archive:)` put in a launch
/// environment, and how `mockNetworkReport()` reads the report back, or says why it cannot.
final class LaunchEnvironmentTests: XCTestCase {
    func testScenarioSetsItsVariableAndAFreshReportFileInTheTemporaryFolder() throws {
        var environment = ["PATH": "/usr/bin"]
        environment.mockNetwork(scenario: "empty")
        let report = try XCTUnwrap(environment.mockNetworkReportFile)
        XCTAssertEqual(environment["MOCKNETWORK_SCENARIO"], "empty")
        XCTAssertEqual(environment["MOCKNETWORK_REPORT"], report.path)
        XCTAssertEqual(
            report.deletingLastPathComponent().standardizedFileURL.path,
            FileManager.default.temporaryDirectory.standardizedFileURL.path)
        XCTAssertTrue(report.lastPathComponent.hasPrefix("MockNetwork-launch-"), report.lastPathComponent)
        XCTAssertEqual(report.pathExtension, "json")
        XCTAssertEqual(environment["PATH"], "/usr/bin")

        var other: [String: String] = [:]
        other.mockNetwork(scenario: "empty")
        XCTAssertNotEqual(other.mockNetworkReportFile, report, "each launch environment gets a file of its own")
    }

    func testArchiveKeepsTheReportChosenAndSetsTheRecordMode() throws {
        var environment: [String: String] = [:]
        environment.mockNetwork(scenario: "empty")
        let report = environment.mockNetworkReportFile
        environment.mockNetwork(archive: "/tmp/flows/checkout.har", recording: .once)
        XCTAssertEqual(environment["MOCKNETWORK_ARCHIVE"], "/tmp/flows/checkout.har")
        XCTAssertEqual(environment["MOCKNETWORK_RECORD"], "once")
        XCTAssertEqual(environment["MOCKNETWORK_SCENARIO"], "empty")
        XCTAssertEqual(environment.mockNetworkReportFile, report)

        environment.mockNetwork(archive: "checkout", recording: .never)
        XCTAssertEqual(environment["MOCKNETWORK_RECORD"], "none")
    }

    func testAReportLeftByAnEarlierLaunchIsRemoved() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString).json")
        try Data("{}".utf8).write(to: file)
        var environment: [String: String] = [:]
        environment.mockNetwork(scenario: "empty", report: file)
        XCTAssertEqual(environment.mockNetworkReportFile?.path, file.path)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    /// The reports MockNetwork chose a file for go when the process ends, unless they show a
    /// failure; a file the test named is left alone.
    func testCleanReportsMockNetworkChoseAreRemovedAndFailingOnesKept() throws {
        LaunchFiles.removeClean()  // what earlier tests of this process left
        var clean: [String: String] = [:]
        clean.mockNetwork(scenario: "standard")
        var failing: [String: String] = [:]
        failing.mockNetwork(archive: "checkout")
        var never: [String: String] = [:]
        never.mockNetwork(scenario: "empty")
        let own = FileManager.default.temporaryDirectory.appendingPathComponent("own-\(UUID().uuidString).json")
        var named: [String: String] = [:]
        named.mockNetwork(scenario: "standard", report: own)
        let report = #"{"requests": [], "unmatched": [], "failures": [], "inFlight": 0}"#
        let withFailure = #"{"requests": [], "unmatched": [], "failures": ["MockNetwork: x"], "inFlight": 0}"#
        for (environment, text) in [(clean, report), (failing, withFailure), (named, report)] {
            try Data(text.utf8).write(to: try XCTUnwrap(environment.mockNetworkReportFile))
        }
        defer {
            for environment in [failing, named] {
                try? FileManager.default.removeItem(at: try XCTUnwrap(environment.mockNetworkReportFile))
            }
        }

        LaunchFiles.removeClean()

        func exists(_ environment: [String: String]) throws -> Bool {
            FileManager.default.fileExists(atPath: try XCTUnwrap(environment.mockNetworkReportFile).path)
        }
        XCTAssertFalse(try exists(clean))
        XCTAssertTrue(try exists(failing))
        XCTAssertFalse(try exists(never))
        XCTAssertTrue(try exists(named), "a report the test named is the test's")
    }

    /// A condition of the test's own adds to "nothing in flight": a report with a request still in
    /// flight is not returned before the timeout, whatever the condition says.
    func testAConditionOfTheTestsOwnDoesNotReplaceNothingInFlight() throws {
        var environment: [String: String] = [:]
        environment.mockNetwork(scenario: "standard")
        let file = try XCTUnwrap(environment.mockNetworkReportFile)
        try Data(#"{"requests": [], "unmatched": [], "failures": [], "inFlight": 1}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let started = Date()
        let report = try environment.mockNetworkReport(timeout: 0.3) { $0.requests.isEmpty }
        XCTAssertEqual(report.inFlight, 1)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "returned while a request was in flight")
    }

    func testReadingFailsClearlyWithoutAReport() throws {
        XCTAssertThrowsError(try [String: String]().mockNetworkReport()) { error in
            XCTAssertEqual(error as? MockLaunchError, .noReportPath)
        }

        var environment: [String: String] = [:]
        environment.mockNetwork(scenario: "empty")
        let path = try XCTUnwrap(environment.mockNetworkReportFile).path
        XCTAssertThrowsError(try environment.mockNetworkReport(timeout: 0.1)) { error in
            XCTAssertEqual(error as? MockLaunchError, .reportNotWritten(path: path, timeout: 0.1))
            XCTAssertTrue(
                "\(error)".hasPrefix(
                    "MockNetwork: the app wrote no report to \(path) within 0.1 s. Check that the app calls "
                        + "MockRegistry.launched(…) at launch"),
                "\(error)")
        }

        try Data(#"{"requests": 3}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try environment.mockNetworkReport(timeout: 0.1)) { error in
            guard case .unreadableReport(let unreadable, _) = error as? MockLaunchError else {
                return XCTFail("expected unreadableReport, got \(error)")
            }
            XCTAssertEqual(unreadable, path)
        }
    }
}
