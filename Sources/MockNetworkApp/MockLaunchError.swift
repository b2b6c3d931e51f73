import Foundation
import MockNetwork
import MockNetworkArchives

/// Why an app launched by a UI test could not set up the mocks the test asked for, or why the test
/// could not read what they saw.
///
/// `MockRegistry.launched(stubs:in:redaction:environment:requestLogLimit:)` throws the first five at
/// launch (and writes them to the report, where the test side finds them); the test side's report
/// reader, `mockNetworkReport()` on the launch environment, throws the others.
public enum MockLaunchError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// `MOCKNETWORK_SCENARIO` names a stub variant the bundle does not have; `variants` are those it has.
    case unknownScenario(String, variants: [String], bundle: String)
    /// The scenario's folder lacks the files of some stubbed URLs (`missing`, as looked for).
    case incompleteScenario(String, missing: [String], bundle: String)
    /// `MOCKNETWORK_ARCHIVE` names an archive that is neither in the bundle nor at that path;
    /// `archives` are those the bundle has.
    case unknownArchive(String, archives: [String], bundle: String)
    /// `MOCKNETWORK_RECORD` asks to record into an archive named by a bundle name, not a path.
    case recordingNeedsPath(String, mode: String)
    /// `MOCKNETWORK_SERVER` names something that is not a `MockServer` the app can forward to (`reason`
    /// says why: not an `http` URL on 127.0.0.1, or no `MOCKNETWORK_SERVER_SECRET` beside it).
    case invalidServer(String, reason: String)
    /// The test's environment names no report file: the launch was not set up with
    /// `mockNetwork(scenario:)` or `mockNetwork(archive:)`.
    case noReportPath
    /// No report appeared at `path` within `timeout` seconds.
    case reportNotWritten(path: String, timeout: TimeInterval)
    /// The report at `path` is not a report; says why.
    case unreadableReport(path: String, reason: String)
    /// The app's mocks failed at launch with this message (the app went on without them, or stopped).
    case launchFailed(String)
    /// A file that `MockRegistry.stubs(_:variant:in:unmatched:)` serves and that is not in the
    /// variant's folder of the bundle.
    case missingStub(name: String, variant: String, bundle: String)

    /// What went wrong, then how to fix it.
    public var description: String {
        switch self {
        case .missingStub(let name, let variant, let bundle):
            "MockNetwork: no file \"\(name)\" for the stub variant \"\(variant)\" in the bundle at \(bundle) "
                + "(looked for \(AppStubs.candidates(for: name, variant: variant).joined(separator: " and "))). "
                + "Add the file to that variant's folder, or point the URL at a file that exists."
        case .unknownScenario(let name, let variants, let bundle):
            LaunchScenario.isName(name)
                ? "MockNetwork: the launch environment asks for the scenario \"\(name)\" "
                    + "(\(LaunchSettings.scenarioVariable)), but the bundle at \(bundle) has no such stub variant. "
                    + "Variants in the bundle: \(Self.list(variants)). Name one of them, or add a folder "
                    + "Fixtures/\(name)/ with the app's stub files to the app's resources."
                : "MockNetwork: the launch environment asks for the scenario \"\(name)\" "
                    + "(\(LaunchSettings.scenarioVariable)), which is a path, not a name: a scenario names a folder "
                    + "of the bundle at \(bundle) (Fixtures/<name>/ or <name>/), and is never read from elsewhere. "
                    + "Variants in the bundle: \(Self.list(variants)). Name one of them."
        case .incompleteScenario(let name, let missing, let bundle):
            "MockNetwork: the scenario \"\(name)\" in the bundle at \(bundle) has no file for "
                + "\(missing.count == 1 ? "one stubbed URL" : "\(missing.count) stubbed URLs") "
                + "(looked for \(missing.joined(separator: "; "))). Add the files to the scenario's folder, "
                + "or remove those URLs from launched(stubs:)."
        case .unknownArchive(let name, let archives, let bundle):
            (name.contains("/")
                ? "MockNetwork: there is no archive at \(name) (\(LaunchSettings.archiveVariable)). "
                : "MockNetwork: the launch environment asks for the archive \"\(name)\" "
                    + "(\(LaunchSettings.archiveVariable)), but the bundle at \(bundle) has none of that name "
                    + "(looked at its top and under Archives/, Fixtures/ and Fixtures/Archives/). ")
                + "Archives in the bundle: \(Self.list(archives)). Name one of them, give the path of a .har file, "
                + "or record one: \(HTTPArchive.RecordMode.environmentVariable)=once with a path."
        case .recordingNeedsPath(let name, let mode):
            "MockNetwork: \(HTTPArchive.RecordMode.environmentVariable)=\(mode) asks to record into the archive "
                + "\"\(name)\", which is a name in the app's bundle, not a file: a recording there would be lost "
                + "with the next build. Set \(LaunchSettings.archiveVariable) to a path in your source tree "
                + "(on the Simulator the app can write there), then copy the file into the app's resources."
        case .invalidServer(let value, let reason):
            "MockNetwork: the launch environment names \"\(value)\" as the UI test's MockServer "
                + "(\(LaunchSettings.serverVariable)), which \(reason). Put the server in the app's launch "
                + "environment with launchEnvironment.mockNetwork(server: server) (MockNetworkServer), which sets "
                + "\(LaunchSettings.serverVariable) and \(LaunchSettings.secretVariable) together."
        case .noReportPath:
            "MockNetwork: the launch environment names no report file (\(LaunchSettings.reportVariable)). "
                + "Call mockNetwork(scenario:) or mockNetwork(archive:) on the launch environment before the "
                + "app is launched, and read the report through that same environment."
        case .reportNotWritten(let path, let timeout):
            "MockNetwork: the app wrote no report to \(path) within \(Self.seconds(timeout)). Check that the "
                + "app calls MockRegistry.launched(…) at launch (in the build the test runs), and that it can "
                + "write there: on the Simulator it can write to the test's temporary folder; on a device it "
                + "cannot, and the report is in the app's own container."
        case .unreadableReport(let path, let reason):
            "MockNetwork: the file \(path) is not a MockNetwork launch report (\(reason)). Point "
                + "\(LaunchSettings.reportVariable) at a file of its own, which only the app writes."
        case .launchFailed(let message):
            "MockNetwork: the app's mocks failed at launch: "
                + (message.hasPrefix("MockNetwork: ") ? String(message.dropFirst(13)) : message)
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// `MockLaunchError` as an `NSError`: a stub's handler fails a request with it, and Apple's
/// URLSession hands the caller an `NSError` rebuilt from the domain, code and message.
extension MockLaunchError: CustomNSError, MockInputError {
    /// The domain of every `MockLaunchError` bridged to `NSError`.
    public static let errorDomain = "MockNetwork.MockLaunchError"

    /// One code per case, stable across releases.
    public var errorCode: Int {
        switch self {
        case .unknownScenario: 1
        case .incompleteScenario: 2
        case .unknownArchive: 3
        case .recordingNeedsPath: 4
        case .invalidServer: 5
        case .noReportPath: 6
        case .reportNotWritten: 7
        case .unreadableReport: 8
        case .launchFailed: 9
        case .missingStub: 10
        }
    }

    /// The message, as `NSLocalizedDescriptionKey` and `NSLocalizedFailureReasonErrorKey` (which an
    /// `NSError`'s description quotes on Linux).
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: description]
    }
}
