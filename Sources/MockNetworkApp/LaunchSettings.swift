import Foundation
import MockNetwork

/// What a UI test asked the app's mocks for, read from the app's launch environment.
///
/// The names are `package`: the UI test's side (`LaunchEnvironment.swift`) writes them, the app
/// reads them, and a user who sets them by hand (a scheme, a shell) finds them in the UI tests
/// article.
package struct LaunchSettings: Sendable, Equatable {
    /// The stub variant to answer from: a folder of the app's bundle, e.g. `empty`.
    package static let scenarioVariable = "MOCKNETWORK_SCENARIO"
    /// The HAR archive to answer from: a name in the app's bundle, or a file path.
    package static let archiveVariable = "MOCKNETWORK_ARCHIVE"
    /// Where the app writes its report (JSON) of what its mocks saw.
    package static let reportVariable = "MOCKNETWORK_REPORT"
    /// The UI test's `MockServer` (`http://127.0.0.1:<port>`), which the app forwards its requests to.
    package static let serverVariable = "MOCKNETWORK_SERVER"
    /// The secret of that server, which the app's forwarded requests carry.
    package static let secretVariable = "MOCKNETWORK_SERVER_SECRET"

    /// The scenario named, if any.
    let scenario: String?
    /// The archive named, if any.
    let archive: String?
    /// The report's file, if the test chose one.
    let report: URL?
    /// The server to forward to, as named (checked by ``LaunchForwarder``), if any.
    let server: String?
    /// The server's secret, if given.
    let secret: String?

    /// The settings `environment` holds; `nil` when it names neither a scenario, an archive nor a
    /// server, so that nothing is mocked (values of only spaces count as not set).
    init?(_ environment: [String: String]) {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
            else { return nil }
            return text
        }
        scenario = value(Self.scenarioVariable)
        archive = value(Self.archiveVariable)
        server = value(Self.serverVariable)
        secret = value(Self.secretVariable)
        guard scenario != nil || archive != nil || server != nil else { return nil }
        report = value(Self.reportVariable).map { URL(fileURLWithPath: $0) }
    }
}
