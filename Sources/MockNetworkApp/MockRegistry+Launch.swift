import Foundation
import MockNetwork
import MockNetworkArchives
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// The registry a UI test asked the app for in its launch environment, or `nil` when the test
    /// asked for none: then nothing is mocked, and nothing is made or read.
    ///
    /// A UI test runs the app in a process of its own and can only hand it an environment.
    /// The test's `mockNetwork(scenario:)` and `mockNetwork(archive:)` (this module's) write it; call this
    /// once at launch, in a development build, and use the registry's session (which keeps the
    /// registry alive) wherever the app would use its own:
    ///
    /// ```swift
    /// #if DEBUG
    /// let session = try MockRegistry.launched(stubs: ["https://api.example.com/breeds.json": "breeds"])?.session
    ///     ?? URLSession.shared
    /// #else
    /// let session = URLSession.shared
    /// #endif
    /// ```
    ///
    /// - `MOCKNETWORK_SCENARIO=empty` answers each URL of `stubs` with its file in the `empty` folder of
    ///   `bundle` (`Fixtures/empty/breeds.json` or `empty/breeds.json`), as
    ///   ``stubs(_:variant:in:unmatched:)`` does. Numbered files (`breeds.1.json`, `breeds.2.json`, …)
    ///   answer one request each, in order, the last one every request after it: a flow.
    /// - A `graphql` folder in the scenario's folder (`Fixtures/empty/graphql/`) answers each GraphQL
    ///   request, at any URL, from the file named after its operation: `GetUser.json`, or
    ///   `GetUser.1.json`, `GetUser.2.json`, … for a flow. The file is the whole GraphQL response
    ///   (`{"data": …}`, `{"errors": […]}`), sent in the media type the request's `Accept` asks for. An
    ///   operation with no file is left to a URL stub or an archive entry that matches it, else fails as
    ///   an unmatched request whose report names the operation and the files the folder holds.
    /// - `MOCKNETWORK_ARCHIVE=checkout` answers from the HAR archive `checkout.har` in `bundle` (at its
    ///   top or under `Archives/`, `Fixtures/`, `Fixtures/Archives/`), or from the file at a path (any
    ///   value with a `/`); entries for one request answer in their recorded order. With
    ///   `MOCKNETWORK_RECORD=once` (`rewrite`, `missing`) and a path, requests nothing answers go to the
    ///   real server and are recorded into that file, redacted by `redaction`.
    /// - `MOCKNETWORK_SERVER=http://127.0.0.1:54321` with `MOCKNETWORK_SERVER_SECRET` (MockNetworkServer's
    ///   `launchEnvironment.mockNetwork(server:)` writes both): every request goes to the UI test's
    ///   `MockServer` with its original URL, method, header fields and body, and the test's handlers
    ///   answer it, live (the test registers, changes, holds and awaits requests as in a unit test). The
    ///   answer comes back whole, once the handler finished it. The server must be running while the app
    ///   runs. It listens on the loopback of the machine the UI test runs on: the Mac for the Simulator,
    ///   the device itself for a device (the test runner runs there, beside the app).
    /// - With several, the scenario's stubs win over the archive's entries, and both over the server.
    /// - A request nothing answers fails with a `URLError`, as in unit tests; it never reaches the network
    ///   unless an archive is being recorded.
    /// - `MOCKNETWORK_REPORT=/path/report.json`: what the registry saw (``MockLaunchReport``) is written
    ///   there at launch and after every change, so the test reads it during the run or after the app exits.
    ///
    /// - Parameters:
    ///   - stubs: full URLs and the names of the files that answer them in a scenario, as for
    ///     ``stubs(_:variant:in:unmatched:)``; none for an app that only replays archives.
    ///   - bundle: the bundle with the scenarios' folders and the archives: `.main` for an app.
    ///   - redaction: what a recording and the report leave out; `Authorization`, `Cookie` and `Set-Cookie` unless given.
    ///   - environment: where the test's choices are read; the process's environment unless given.
    ///   - requestLogLimit: how many of the latest requests (with their answers' bodies) the registry
    ///     and the report keep: 100 unless given, so an app that runs long keeps a bounded amount.
    /// - Returns: the registry, or `nil` when the environment names no scenario, archive or server.
    /// - Throws: ``MockLaunchError`` when the scenario or archive named is not in the bundle (naming
    ///   those that are) or lacks files, a recording is asked of a bundle name, or the server named is
    ///   not on 127.0.0.1 or comes without its secret; `HTTPArchive.LoadError`
    ///   for a broken archive; `ArchiveError.invalidRecordMode(_:)` for a bad `MOCKNETWORK_RECORD`.
    ///   The error is also written to the report, so the test fails with it even when the app goes on
    ///   without mocks. Show or log it; never fall back to the network silently.
    public static func launched(
        stubs: [String: String] = [:], in bundle: Bundle = .main, redaction: HTTPArchive.Redaction = .standard,
        environment: [String: String] = ProcessInfo.processInfo.environment, requestLogLimit: Int = 100
    ) throws -> MockRegistry? {
        try launched(
            stubs: stubs, in: bundle, redaction: redaction, environment: environment, requestLogLimit: requestLogLimit,
            forwardingBy: LaunchForwarder.load)
    }

    /// As the public `launched(…)`, with the forwarding's transport given: MockNetwork's tests fail
    /// it as a platform would (an App Transport Security refusal, which Linux never makes).
    static func launched(
        stubs: [String: String], in bundle: Bundle, redaction: HTTPArchive.Redaction, environment: [String: String],
        requestLogLimit: Int, forwardingBy transport: @escaping LaunchForwarder.Transport
    ) throws -> MockRegistry? {
        guard let settings = LaunchSettings(environment) else { return nil }
        let registry = MockRegistry(requestLogLimit: requestLogLimit)
        registry.readsGraphQL()
        do {
            // The server and the scenario first: checking them writes nothing, and starting a
            // recording writes the archive.
            let forwarder = try settings.server.map {
                try LaunchForwarder(server: $0, secret: settings.secret, transport: transport)
            }
            if let scenario = settings.scenario {
                try LaunchScenario.register(scenario, routes: stubs, in: bundle, on: registry)
            }
            if let archive = settings.archive {
                try LaunchArchive.use(
                    archive, in: bundle, environment: environment, redaction: redaction, on: registry)
            }
            forwarder?.install(on: registry)
        } catch {
            if let file = settings.report {
                LaunchReportWriter.write(MockLaunchReport(settings: settings, launchError: "\(error)"), to: file)
            }
            throw error
        }
        if let file = settings.report {
            LaunchReportWriter.start(watching: registry, settings: settings, file: file, redaction: redaction)
        }
        return registry
    }
}
