import Foundation

/// What a UI test asked the app's mocks for, read from the app's launch environment.
///
/// The names are `package`: MockNetworkTesting writes them, the app reads them, and a user who sets
/// them by hand (a scheme, a shell) finds them in the UI tests article.
package struct LaunchSettings: Sendable, Equatable {
    /// The stub variant to answer from: a folder of the app's bundle, e.g. `empty`.
    package static let scenarioVariable = "MOCKNETWORK_SCENARIO"
    /// The HAR archive to answer from: a name in the app's bundle, or a file path.
    package static let archiveVariable = "MOCKNETWORK_ARCHIVE"
    /// Where the app writes its report (JSON) of what its mocks saw.
    package static let reportVariable = "MOCKNETWORK_REPORT"

    /// The scenario named, if any.
    let scenario: String?
    /// The archive named, if any.
    let archive: String?
    /// The report's file, if the test chose one.
    let report: URL?

    /// The settings `environment` holds; `nil` when it names neither a scenario nor an archive,
    /// so that nothing is mocked (values of only spaces count as not set).
    init?(_ environment: [String: String]) {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
            else { return nil }
            return text
        }
        scenario = value(Self.scenarioVariable)
        archive = value(Self.archiveVariable)
        guard scenario != nil || archive != nil else { return nil }
        report = value(Self.reportVariable).map { URL(fileURLWithPath: $0) }
    }
}
