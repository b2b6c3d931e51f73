import Foundation
import MockNetwork
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
