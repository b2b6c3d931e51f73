import Foundation
import MockNetworkTesting
import XCTest

@testable import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
    @testable import MockNetworkApp
#endif

/// What an app that forwards to a UI test's `MockServer` makes of a connection its platform refuses.
/// Linux's Foundation never refuses one, so the forwarding's transport fails here as Apple's is
/// documented to: App Transport Security refuses a cleartext connection with
/// `URLError(.appTransportSecurityRequiresSecureConnection)` (-1022). That Apple's URL loading gives
/// that code for `http://127.0.0.1` is from documentation, not verified here.
final class ForwardingRefusalTests: XCTestCase {
    private let user = URL(string: "https://api.example.com/user")!

    /// An app launched with `environment`, whose forwarding fails every request with `error`.
    private func app(_ environment: [String: String], failingWith error: URLError) throws -> MockRegistry {
        try XCTUnwrap(
            MockRegistry.launched(
                stubs: [:], in: .main, redaction: .standard, environment: environment, requestLogLimit: 100,
                forwardingBy: { _ in throw error }))
    }

    private func environment(report: URL? = nil) -> [String: String] {
        var environment = [
            "MOCKNETWORK_SERVER": "http://127.0.0.1:54321",
            "MOCKNETWORK_SERVER_SECRET": String(repeating: "ab", count: 32),
        ]
        environment["MOCKNETWORK_REPORT"] = report?.path
        return environment
    }

    private func failure(of app: MockRegistry, _ url: URL) async throws -> URLError? {
        try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: url)
                return nil
            } catch {
                return error as? URLError
            }
        }
    }

    func testAnATSRefusalTellsTheAppWhichInfoPlistKeyToAdd() async throws {
        let app = try app(environment(), failingWith: URLError(.appTransportSecurityRequiresSecureConnection))
        let error = try await failure(of: app, user)
        XCTAssertEqual(error?.code, .appTransportSecurityRequiresSecureConnection, "the platform's code, kept")
        XCTAssertEqual(error?.failingURL, user)
        let message = error?.localizedDescription ?? ""
        XCTAssertTrue(
            message.hasPrefix(
                "MockNetwork: App Transport Security refused the app's connection to the UI test's MockServer at "
                    + "http://127.0.0.1:54321 (MOCKNETWORK_SERVER), so GET https://api.example.com/user got no answer"),
            message)
        XCTAssertTrue(
            message.contains("NSAppTransportSecurity → NSAllowsLocalNetworking = YES"), "names the key: \(message)")
        XCTAssertTrue(message.contains("Info.plist of the app's debug build"), message)
    }

    func testAnATSRefusalIsAFailureInTheLaunchReportOnce() async throws {
        let report = FileManager.default.temporaryDirectory
            .appendingPathComponent("MockNetwork-ats-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        let environment = environment(report: report)
        let app = try app(environment, failingWith: URLError(.appTransportSecurityRequiresSecureConnection))
        _ = try await failure(of: app, user)
        _ = try await failure(of: app, URL(string: "https://api.example.com/feed")!)
        let failures = try environment.mockNetworkReport { $0.failures.count >= 1 && $0.requests.count == 2 }.failures
        XCTAssertEqual(failures.count, 1, "one failure however many requests ATS refused: \(failures)")
        XCTAssertTrue(failures.first?.contains("NSAllowsLocalNetworking = YES") == true, "\(failures)")
        XCTAssertEqual(app.failures.count, 1)
    }

    func testAnotherErrorOfTheForwardingIsNotCalledARefusal() async throws {
        let app = try app(environment(), failingWith: URLError(.timedOut))
        let error = try await failure(of: app, user)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertFalse(error?.localizedDescription.contains("NSAllowsLocalNetworking") ?? true)
        XCTAssertEqual(app.failures, [])
    }
}
