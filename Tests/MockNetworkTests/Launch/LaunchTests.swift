import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkArchives
    import MockNetworkApp
#endif

/// `MockRegistry.launched(…)`, the app's side of UI tests, in this process: what the launch
/// environment turns on, scenarios and their sequences, archives, failures at launch, and the report.
final class LaunchTests: XCTestCase {
    private let breedsURL = "https://api.example.com/breeds"
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("LaunchTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func bundle() throws -> Bundle {
        try temporaryBundle(
            self,
            files: [
                "Fixtures/standard/breeds.json": #"["Abyssinian","Bengal"]"#,
                "Fixtures/empty/breeds.json": "[]",
                "Fixtures/refresh/breeds.1.json": "[]",
                "Fixtures/refresh/breeds.2.json": #"["Abyssinian"]"#,
                "Fixtures/refresh/breeds.3.json": #"["Abyssinian","Bengal"]"#,
                "Fixtures/no-breeds/user.json": "{}",
                "Fixtures/Archives/checkout.har": try checkoutArchive(),
                "Archives/other.har": String(decoding: try HTTPArchive().json(), as: UTF8.self),
            ])
    }

    /// A flow as recorded: the cart twice (empty, then with an item), and the order in between.
    private func checkoutArchive() throws -> String {
        func entry(_ method: String, _ url: String, _ status: Int, _ body: String) -> HTTPArchive.Entry {
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: method, url: url),
                response: HTTPArchive.Response(status: status, body: HTTPArchive.Body(Data(body.utf8))))
        }
        let archive = HTTPArchive(entries: [
            entry("GET", "https://shop.example.com/cart", 200, #"{"items":[]}"#),
            entry("POST", "https://shop.example.com/orders", 201, #"{"order":1}"#),
            entry("GET", "https://shop.example.com/cart", 200, #"{"items":["tea"]}"#),
        ])
        return String(decoding: try archive.json(), as: UTF8.self)
    }

    /// The environment a UI test hands the app, with the report in this test's folder.
    private func environment(_ settings: [String: String]) -> [String: String] {
        settings.merging(["MOCKNETWORK_REPORT": folder.appendingPathComponent("report.json").path]) { $1 }
    }

    // MARK: Nothing unless asked

    func testNothingIsMockedUnlessTheEnvironmentNamesAScenarioOrAnArchive() throws {
        let report = folder.appendingPathComponent("report.json")
        let unasked = [
            [:],
            ["MOCKNETWORK_REPORT": report.path, "MOCKNETWORK_RECORD": "once"],
            ["MOCKNETWORK_SCENARIO": "  ", "MOCKNETWORK_ARCHIVE": "", "MOCKNETWORK_REPORT": report.path],
        ]
        for environment in unasked {
            XCTAssertNil(try MockRegistry.launched(stubs: [breedsURL: "breeds"], environment: environment))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: report.path), "no report without mocks")
    }

    func testTheReadmeLaunchLineFallsBackToTheSharedSessionWhenNotLaunchedByATest() throws {
        try XCTSkipIf(
            ProcessInfo.processInfo.environment.keys.contains { $0.hasPrefix("MOCKNETWORK_SCENARIO") },
            "this run's own environment names a scenario")
        // README, "UI tests": the app's line.
        let session =
            try MockRegistry.launched(stubs: ["https://cats.example.com/breeds.json": "breeds"])?.session
            ?? .shared
        XCTAssertTrue(session === URLSession.shared)
    }

    // MARK: Scenarios

    func testScenarioAnswersFromItsVariantAndTheReportShowsEveryRequest() async throws {
        let environment = environment(["MOCKNETWORK_SCENARIO": "empty"])
        // Only the session is kept, as an app keeps it: it keeps the registry, and its report, going.
        let session = try XCTUnwrap(
            MockRegistry.launched(stubs: [breedsURL: "breeds"], in: bundle(), environment: environment)?.session)

        let atLaunch = try MockLaunchReport(contentsOf: folder.appendingPathComponent("report.json"))
        XCTAssertEqual(atLaunch.scenario, "empty")
        XCTAssertEqual(atLaunch.requests, [], "written at launch, before any request")

        let reply = try await send(session, "POST", breedsURL, body: Data(#"{"q":"a"}"#.utf8))
        XCTAssertEqual(reply.text, "[]")

        let report = try environment.mockNetworkReport { $0.requests.count == 1 && $0.inFlight == 0 }
        XCTAssertEqual(report.scenario, "empty")
        XCTAssertNil(report.archive)
        XCTAssertNil(report.launchError)
        XCTAssertEqual(report.requests.map(\.method), ["POST"])
        XCTAssertEqual(report.requests.map(\.url), [breedsURL])
        XCTAssertEqual(report.requests.map(\.status), [200])
        XCTAssertEqual(report.requests.map(\.body), [#"{"q":"a"}"#])
        XCTAssertEqual(report.requests.map(\.error), [nil])
        XCTAssertEqual(report.unmatched, [])
        XCTAssertEqual(report.failures, [])
        XCTAssertEqual(report.inFlight, 0)
    }

    func testNumberedFilesAnswerAFlowInOrderAndTheLastRepeats() async throws {
        let registry = try XCTUnwrap(
            MockRegistry.launched(
                stubs: [breedsURL: "breeds"], in: bundle(), environment: ["MOCKNETWORK_SCENARIO": "refresh"]))
        var bodies: [String] = []
        for _ in 0..<4 { bodies.append(try await send(registry.session, "GET", breedsURL).text) }
        XCTAssertEqual(bodies, ["[]", #"["Abyssinian"]"#, #"["Abyssinian","Bengal"]"#, #"["Abyssinian","Bengal"]"#])
        XCTAssertEqual(registry.failures, [])
    }

    func testUnknownScenarioFailsAtLaunchNamingItAndTheVariantsAndTheTestReadsWhy() throws {
        let bundle = try bundle()
        let environment = environment(["MOCKNETWORK_SCENARIO": "emtpy"])
        let expected = MockLaunchError.unknownScenario(
            "emtpy", variants: ["empty", "refresh", "standard"], bundle: bundle.bundleURL.path)
        XCTAssertThrowsError(
            try MockRegistry.launched(stubs: [breedsURL: "breeds"], in: bundle, environment: environment)
        ) { error in
            XCTAssertEqual(error as? MockLaunchError, expected)
        }
        XCTAssertEqual(
            expected.description,
            "MockNetwork: the launch environment asks for the scenario \"emtpy\" (MOCKNETWORK_SCENARIO), but the "
                + "bundle at \(bundle.bundleURL.path) has no such stub variant. Variants in the bundle: empty, refresh, "
                + "standard. Name one of them, or add a folder Fixtures/emtpy/ with the app's stub files to the app's "
                + "resources.")

        XCTAssertThrowsError(try environment.mockNetworkReport()) { error in
            XCTAssertEqual(error as? MockLaunchError, .launchFailed(expected.description))
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: the app's mocks failed at launch: " + expected.description.dropFirst(13))
        }
    }

    /// What the environment names is a name in the bundle: a scenario or archive given as a path
    /// that climbs out of the bundle is refused, with the error that lists what the bundle has,
    /// although the files it points at exist.
    func testAScenarioOrArchiveThatClimbsOutOfTheBundleIsRefused() throws {
        let bundle = try bundle()
        let root = bundle.resourceURL ?? bundle.bundleURL
        // Stub files and an archive outside the bundle, which the climbing names reach.
        let outside = folder.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data(#"["outside"]"#.utf8).write(to: outside.appendingPathComponent("breeds.json"))
        try Data(try checkoutArchive().utf8).write(to: outside.appendingPathComponent("escape.har"))
        let climb = String(repeating: "../", count: root.pathComponents.count) + outside.path.dropFirst()

        XCTAssertThrowsError(
            try MockRegistry.launched(
                stubs: [breedsURL: "breeds"], in: bundle, environment: ["MOCKNETWORK_SCENARIO": climb])
        ) { error in
            XCTAssertEqual(
                error as? MockLaunchError,
                .unknownScenario(climb, variants: ["empty", "refresh", "standard"], bundle: bundle.bundleURL.path))
            // A path is named as one: no advice to add a folder named after it.
            let message = (error as? MockLaunchError)?.description ?? ""
            XCTAssertTrue(message.contains("which is a path, not a name"), message)
            XCTAssertFalse(message.contains("add a folder"), message)
        }
        for archive in [climb + "/escape.har", "../escape.har", ".."] {
            XCTAssertThrowsError(
                try MockRegistry.launched(in: bundle, environment: ["MOCKNETWORK_ARCHIVE": archive])
            ) { error in
                XCTAssertEqual(
                    error as? MockLaunchError,
                    .unknownArchive(archive, archives: ["checkout", "other"], bundle: bundle.bundleURL.path))
            }
        }
    }

    func testTheReportWriterStopsOnceTheRegistryAndItsSessionAreGone() async throws {
        let bundle = try bundle()
        let file = folder.appendingPathComponent("report.json")
        do {
            let mocks = try XCTUnwrap(
                try MockRegistry.launched(
                    stubs: [breedsURL: "breeds"], in: bundle,
                    environment: environment(["MOCKNETWORK_SCENARIO": "standard"])
                ))
            _ = try await mocks.session.data(from: try url(breedsURL))
            XCTAssertTrue(LaunchReportWriter.isLooking(at: file))
        }
        // Its next look finds both gone, writes a last time and stops.
        try await withWatchdog(10) {
            while LaunchReportWriter.isLooking(at: file) { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        let report = try MockLaunchReport(contentsOf: file)
        XCTAssertEqual(report.requests.count, 1)
    }

    func testALaunchedRegistryKeepsABoundedLog() async throws {
        let bundle = try bundle()
        let environment = environment(["MOCKNETWORK_SCENARIO": "standard"])
        let mocks = try XCTUnwrap(
            try MockRegistry.launched(stubs: [breedsURL: "breeds"], in: bundle, environment: environment))
        XCTAssertEqual(mocks.requestLogLimit, 100)
        for _ in 0..<150 { _ = try await mocks.session.data(from: try url(breedsURL)) }
        XCTAssertEqual(mocks.requests.count, 100)
        let few = try XCTUnwrap(
            try MockRegistry.launched(
                stubs: [breedsURL: "breeds"], in: bundle, environment: environment, requestLogLimit: 5))
        XCTAssertEqual(few.requestLogLimit, 5)
    }

    func testScenarioWithoutTheFileOfAStubbedURLFailsAtLaunchNamingThePaths() throws {
        let bundle = try bundle()
        XCTAssertThrowsError(
            try MockRegistry.launched(
                stubs: [breedsURL: "breeds", "https://api.example.com/user": "user"], in: bundle,
                environment: ["MOCKNETWORK_SCENARIO": "standard"])
        ) { error in
            XCTAssertEqual(
                error as? MockLaunchError,
                .incompleteScenario(
                    "standard", missing: ["Fixtures/standard/user.json or standard/user.json"],
                    bundle: bundle.bundleURL.path))
        }
    }

    func testUnmatchedRequestFailsAsInUnitTestsAndTheReportNamesTheNearestMatch() async throws {
        let environment = environment(["MOCKNETWORK_SCENARIO": "standard"])
        let registry = try XCTUnwrap(
            MockRegistry.launched(stubs: [breedsURL: "breeds"], in: bundle(), environment: environment))
        let error = await thrownError { try await send(registry.session, "GET", self.breedsURL + "?page=2") }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)

        let report = try environment.mockNetworkReport { $0.requests.count == 1 && $0.inFlight == 0 }
        XCTAssertEqual(report.unmatched.map(\.method), ["GET"])
        XCTAssertEqual(report.unmatched.map(\.url), [breedsURL + "?page=2"])
        XCTAssertEqual(report.unmatched.map(\.message), registry.failures.map(\.message))
        let message = try XCTUnwrap(report.unmatched.first?.message)
        XCTAssertEqual(
            message.split(separator: "\n").prefix(2),
            ["MockNetwork: no handler for GET \(breedsURL)?page=2.", "Nearest: \(breedsURL) (query ?page=2 ≠ (none))"])
        XCTAssertEqual(report.requests.map(\.status), [nil])
        XCTAssertEqual(report.failures, [], "an unmatched request is reported once, as unmatched")
    }

    // MARK: Archives

    func testArchiveInTheBundleAnswersAFlowInItsRecordedOrder() async throws {
        let environment = environment(["MOCKNETWORK_ARCHIVE": "checkout"])
        let registry = try XCTUnwrap(MockRegistry.launched(in: bundle(), environment: environment))
        let cart = "https://shop.example.com/cart"
        let before = try await send(registry.session, "GET", cart)
        let order = try await send(registry.session, "POST", "https://shop.example.com/orders", body: Data("tea".utf8))
        let after = try await send(registry.session, "GET", cart)
        let again = try await send(registry.session, "GET", cart)
        XCTAssertEqual(
            [before.text, order.text, after.text, again.text],
            [#"{"items":[]}"#, #"{"order":1}"#, #"{"items":["tea"]}"#, #"{"items":["tea"]}"#])
        XCTAssertEqual(order.status, 201)

        let report = try environment.mockNetworkReport { $0.requests.count == 4 && $0.inFlight == 0 }
        XCTAssertEqual(report.archive, "checkout")
        XCTAssertEqual(report.requests.map(\.status), [200, 201, 200, 200])
        XCTAssertEqual(report.requests.map(\.body), [nil, "tea", nil, nil])
        XCTAssertEqual(report.unmatched, [])
    }

    func testUnknownArchiveFailsAtLaunchNamingTheArchivesInTheBundle() throws {
        let bundle = try bundle()
        XCTAssertThrowsError(
            try MockRegistry.launched(in: bundle, environment: ["MOCKNETWORK_ARCHIVE": "chekout"])
        ) { error in
            XCTAssertEqual(
                error as? MockLaunchError,
                .unknownArchive("chekout", archives: ["checkout", "other"], bundle: bundle.bundleURL.path))
        }
        let path = folder.appendingPathComponent("missing.har").path
        XCTAssertThrowsError(try MockRegistry.launched(in: bundle, environment: ["MOCKNETWORK_ARCHIVE": path])) {
            error in
            let expected = MockLaunchError.unknownArchive(
                path, archives: ["checkout", "other"], bundle: bundle.bundleURL.path)
            XCTAssertEqual(error as? MockLaunchError, expected)
            XCTAssertTrue(
                expected.description.hasPrefix(
                    "MockNetwork: there is no archive at \(path) (MOCKNETWORK_ARCHIVE). Archives in the bundle: "
                        + "checkout, other."),
                expected.description)
        }
    }

    func testRecordingIntoANameOfTheBundleFailsAtLaunchAskingForAPath() throws {
        let bundle = try bundle()
        for (name, mode) in [("checkout", "rewrite"), ("new-flow", "once")] {
            XCTAssertThrowsError(
                try MockRegistry.launched(
                    in: bundle, environment: ["MOCKNETWORK_ARCHIVE": name, "MOCKNETWORK_RECORD": mode])
            ) { error in
                XCTAssertEqual(error as? MockLaunchError, .recordingNeedsPath(name, mode: mode))
            }
        }
    }

    func testRecordOnceRecordsTheAppsRealTrafficRedactedThenReplaysIt() async throws {
        let server = try LoopbackServer(
            routes: [
                "GET /breeds.json": .init(
                    status: 200, headers: [("Content-Type", "application/json")], text: #"["Abyssinian"]"#)
            ], maxRequests: 4, lifetime: 20)
        defer { server.stop() }
        let url = try XCTUnwrap(server.url("/breeds.json")).absoluteString
        let file = folder.appendingPathComponent("Archives/breeds.har")
        let recording = environment(["MOCKNETWORK_ARCHIVE": file.path, "MOCKNETWORK_RECORD": "once"])

        let recorder = try XCTUnwrap(MockRegistry.launched(environment: recording))
        let recorded = try await send(recorder.session, "GET", url, headers: ["Authorization": "Bearer s3cret"])
        XCTAssertEqual(recorded.text, #"["Abyssinian"]"#)
        XCTAssertEqual(server.received.map(\.target), ["/breeds.json"])

        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.url), [url])
        XCTAssertEqual(archive.entries.map(\.response.status), [200])
        XCTAssertEqual(archive.entries.first?.response.body.text, #"["Abyssinian"]"#)
        XCTAssertEqual(
            archive.entries.first?.request.headers.filter { $0.name.lowercased() == "authorization" }, [],
            "redacted as every recording is")
        let report = try recording.mockNetworkReport { $0.requests.count == 1 && $0.inFlight == 0 }
        XCTAssertEqual(report.requests.map(\.status), [200])
        XCTAssertEqual(report.failures, [])

        // The file exists now: the same launch replays it, and the server hears nothing more.
        let replayer = try XCTUnwrap(MockRegistry.launched(environment: recording))
        let replayed = try await send(replayer.session, "GET", url)
        XCTAssertEqual(replayed.text, #"["Abyssinian"]"#)
        XCTAssertEqual(server.received.count, 1)
    }
}
