// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetwork
    import MockNetworkTesting
    import XCTest
    import MockNetworkArchives
    import MockNetworkApp

    /// The end-to-end proof on Linux: the built `CatBreedsDemo` launched as a UI test launches an app,
    /// in a process of its own that only gets an environment, with each scenario and with archives;
    /// its output is what its screen shows, and its report is what its mocks saw.
    final class CatBreedsDemoLaunchTests: XCTestCase {
        /// Removes the launch report `environment` names, once the test has read it.
        private static func removeReport(of environment: [String: String]) {
            if let path = environment[LaunchSettings.reportVariable] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }

        private let breedsURL = "https://cats.example.com/breeds.json"

        private func demo() throws -> URL { try DemoProcess.builtDemo() }
        private var cleanEnvironment: [String: String] { DemoProcess.cleanEnvironment }

        func testEachScenarioShowsItsScreenAndTheReportShowsTheRequest() throws {
            // Each scenario's screen: its first line, and how many lines it has.
            let screens: [(scenario: String, firstLine: String, lines: Int)] = [
                ("empty", "no breeds", 1),
                ("malformed", "bad response", 1),
                (
                    "standard",
                    "1. Maine Coon — popularity 3 — known for a gentle-giant temperament and a shaggy, "
                        + "water-resistant coat", 4
                ),
                (
                    "with-more",
                    "1. Ragdoll — popularity 1 — known for going limp in your arms and a placid, dog-like devotion", 8
                ),
            ]
            for (scenario, firstLine, lines) in screens {
                var environment = cleanEnvironment
                environment.mockNetwork(scenario: scenario)
                let run = try DemoProcess.run(demo(), environment: environment)
                XCTAssertEqual(run.status, 0, "\(scenario): \(run.errors)")
                let shown = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                XCTAssertEqual(shown.first, "== \(scenario) ==")
                XCTAssertEqual(shown.dropFirst().first, firstLine, scenario)
                XCTAssertEqual(
                    shown.count, lines + 2, "\(scenario): the header, \(lines) lines, the end:\n\(run.output)")
                XCTAssertEqual(run.errors, "", scenario)

                let report = try environment.mockNetworkReport()
                XCTAssertEqual(report.scenario, scenario)
                XCTAssertEqual(report.requests.map(\.method), ["GET"], scenario)
                XCTAssertEqual(report.requests.map(\.url), [breedsURL], scenario)
                XCTAssertEqual(report.requests.map(\.status), [200], scenario)
                XCTAssertEqual(report.unmatched, [], scenario)
                XCTAssertEqual(report.failures, [], scenario)
                XCTAssertEqual(report.inFlight, 0, scenario)
            }
        }

        func testAnArchiveInTheBundleIsReplayed() throws {
            var environment = cleanEnvironment
            environment.mockNetwork(archive: "two-breeds", recording: .never)
            let run = try DemoProcess.run(demo(), environment: environment)
            XCTAssertEqual(run.status, 0, run.errors)
            XCTAssertEqual(
                run.output,
                """
                == two-breeds ==
                1. Maine Coon — popularity 3 — known for a gentle-giant temperament and a shaggy, water-resistant coat
                2. Siamese — popularity 11 — known for a pointed coat, blue almond-shaped eyes and a loud, chatty voice

                """)
            let report = try environment.mockNetworkReport()
            XCTAssertEqual(report.archive, "two-breeds")
            XCTAssertEqual(report.requests.map(\.status), [200])
            XCTAssertEqual(report.unmatched, [])
        }

        func testARequestTheArchiveLacksFailsAndTheReportNamesTheNearestEntry() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "DemoLaunch-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("v2.har")
            try HTTPArchive(entries: [
                HTTPArchive.Entry(
                    request: HTTPArchive.Request(method: "GET", url: "https://cats.example.com/v2/breeds.json"),
                    response: HTTPArchive.Response(status: 200, body: HTTPArchive.Body(Data(#"{"breeds": []}"#.utf8))))
            ]).write(to: file)
            var environment = cleanEnvironment
            environment.mockNetwork(archive: file.path, recording: .never)
            // A report that shows a failure stays after the process for its reader: this test reads it.
            defer { Self.removeReport(of: environment) }

            let run = try DemoProcess.run(demo(), environment: environment)
            XCTAssertEqual(run.status, 0, run.errors)
            XCTAssertEqual(run.output, "== \(file.path) ==\ncould not load breeds\n")

            let report = try environment.mockNetworkReport()
            XCTAssertEqual(report.unmatched.map(\.url), [breedsURL])
            let message = try XCTUnwrap(report.unmatched.first?.message)
            XCTAssertTrue(
                message.hasPrefix(
                    "MockNetwork: no entry for GET \(breedsURL) in the archive \(file.path).\n"
                        + "Nearest: GET https://cats.example.com/v2/breeds.json ("),
                message)
            XCTAssertEqual(run.errors, message + "\n", "the demo shows its failures to whoever runs it")
        }

        func testAnUnknownScenarioStopsTheDemoNamingTheVariantsAndTheTestReadsWhy() throws {
            var environment = cleanEnvironment
            environment.mockNetwork(scenario: "offline")
            defer { Self.removeReport(of: environment) }
            let binary = try demo()
            let run = try DemoProcess.run(binary, environment: environment)
            let resources = binary.deletingLastPathComponent().appendingPathComponent(
                "MockNetwork_CatBreedsDemo.resources")
            // (On Apple platforms SwiftPM names the resource bundle `….bundle`.)
            let bundle =
                FileManager.default.fileExists(atPath: resources.path)
                ? resources.path
                : binary.deletingLastPathComponent().appendingPathComponent(
                    "MockNetwork_CatBreedsDemo.bundle"
                ).path
            let expected = MockLaunchError.unknownScenario(
                "offline", variants: ["empty", "malformed", "standard", "with-more"], bundle: bundle)
            XCTAssertEqual(run.status, 1)
            XCTAssertEqual(run.output, "")
            XCTAssertEqual(run.errors, "CatBreedsDemo: \(expected)\n")
            XCTAssertThrowsError(try environment.mockNetworkReport()) { error in
                XCTAssertEqual(error as? MockLaunchError, .launchFailed(expected.description))
            }
        }

        func testWithoutTheEnvironmentTheDemoShowsEveryVariantAsBefore() throws {
            let run = try DemoProcess.run(demo(), environment: cleanEnvironment)
            XCTAssertEqual(run.status, 0, run.errors)
            let headers = run.output.split(separator: "\n").filter { $0.hasPrefix("== ") }
            XCTAssertEqual(
                headers, ["== standard ==", "== empty ==", "== malformed ==", "== with-more ==", "== offline =="])
            XCTAssertTrue(run.output.hasSuffix("== offline ==\noffline\n\n"), run.output)
        }
    }
#endif
