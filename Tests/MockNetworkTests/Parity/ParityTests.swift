import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Client code run against a real HTTP server on 127.0.0.1, against MockNetwork, and against
/// MockNetwork served over HTTP sees the same.
final class ParityTests: XCTestCase {
    func testEveryScenarioLooksTheSameAgainstTheServerAndTheMock() async throws {
        let scenarios = ParityScenarios.all
        var identical = 0
        var documented = 0
        var servedDocumented = 0
        for scenario in scenarios {
            let start = Date()
            let (server, mock, served) = try await ParityHarness.observe(scenario)
            let took = Date().timeIntervalSince(start)
            if took > 2 { print("parity: \(scenario.name) took \(String(format: "%.1f", took)) s") }
            let differences = server.differences(from: mock)
            if ProcessInfo.processInfo.environment["PARITY_SHOW"] == scenario.name {
                print("parity: \(scenario.name)\nserver:\n  \(server)\nmock:\n  \(mock)\nserved:\n  \(served)")
            }
            let servedDifferences = server.differences(from: served)
            if !servedDifferences.isEmpty, servedDifferences == scenario.servedPinned { servedDocumented += 1 }
            if servedDifferences != scenario.servedPinned {
                XCTFail(
                    """
                    \(scenario.name), served over HTTP: differs in \(servedDifferences)\
                    \(scenario.servedPinned.isEmpty ? "" : " (pinned: \(scenario.servedPinned))")
                    server:
                      \(server)
                    served:
                      \(served)
                    """)
            }
            if differences.isEmpty, scenario.pinned.isEmpty {
                identical += 1
                continue
            }
            if !scenario.pinned.isEmpty, differences == scenario.pinned {
                documented += 1
                continue
            }
            XCTFail(
                """
                \(scenario.name): differs in \(differences)\(scenario.pinned.isEmpty ? "" : " (pinned: \(scenario.pinned))")
                server:
                  \(server)
                mock:
                  \(mock)
                """)
        }
        print(
            "parity: \(scenarios.count) scenarios, \(identical) identical, \(documented) documented differences"
                + (identical + documented == scenarios.count
                    ? "" : ", \(scenarios.count - identical - documented) failing")
                + "; served over HTTP, \(servedDocumented) documented differences")
    }
}
