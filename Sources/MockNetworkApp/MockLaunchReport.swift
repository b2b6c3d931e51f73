import Foundation
import MockNetwork

/// What the mocks of an app launched by a UI test saw: every request with its answer, the requests
/// nothing answered (with the nearest match), and other failures. The app writes it as JSON to the
/// file the test named in `MOCKNETWORK_REPORT`, after every change; the test reads it back (`mockNetworkReport()`).
///
/// ```swift
/// let report = try app.launchEnvironment.mockNetworkReport()
/// #expect(report.unmatched.isEmpty)
/// #expect(report.requests.map(\.url) == ["https://api.example.com/breeds.json"])
/// ```
public struct MockLaunchReport: Sendable, Equatable, Codable {
    /// The scenario the launch named (`MOCKNETWORK_SCENARIO`), if any.
    public var scenario: String?
    /// The archive the launch named (`MOCKNETWORK_ARCHIVE`), as named, if any.
    public var archive: String?
    /// Why the mocks could not be set up, when they could not; then nothing was mocked.
    public var launchError: String?
    /// Every request the mocks received, in the order they arrived (the latest 10,000).
    public var requests: [Request]
    /// The requests nothing answered: no stub, no archive entry. They failed, as in unit tests.
    public var unmatched: [Unmatched]
    /// Every other failure: a stub file that went missing, an invalid answer, a recording that failed.
    public var failures: [String]
    /// How many requests were still waiting for their answer when the report was written.
    public var inFlight: Int

    /// A request the mocks received, and what it got.
    public struct Request: Sendable, Equatable, Codable {
        /// The HTTP method.
        public var method: String
        /// The full URL, query included (less any query parameters the redaction removes).
        public var url: String
        /// The status it was answered with; `nil` when it failed or is still waiting.
        public var status: Int?
        /// Why it failed, when it did.
        public var error: String?
        /// The body it carried, as UTF-8 text (the first 64 KB); `nil` when it had none or it is not text.
        public var body: String?
    }

    /// A request nothing answered.
    public struct Unmatched: Sendable, Equatable, Codable {
        /// The HTTP method.
        public var method: String
        /// The full URL.
        public var url: String
        /// The failure, as a unit test reports it: the request, the nearest match and how it
        /// differs, what is registered, and the fix.
        public var message: String
    }

    init(
        settings: LaunchSettings, launchError: String? = nil, requests: [Request] = [], unmatched: [Unmatched] = [],
        failures: [String] = [], inFlight: Int = 0
    ) {
        scenario = settings.scenario
        archive = settings.archive
        self.launchError = launchError
        self.requests = requests
        self.unmatched = unmatched
        self.failures = failures
        self.inFlight = inFlight
    }

    /// Reads the report in the file at `url`.
    ///
    /// - Throws: ``MockLaunchError/unreadableReport(path:reason:)`` when the file cannot be read or
    ///   holds no report.
    public init(contentsOf url: URL) throws {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MockLaunchError.unreadableReport(path: url.path, reason: error.localizedDescription)
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw MockLaunchError.unreadableReport(path: url.path, reason: "\(error)")
        }
    }

    /// The report as the file holds it: JSON, keys sorted, indented.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
