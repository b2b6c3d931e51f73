import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkApp
#endif

/// UI tests with live handlers, the app simulated in this process: the app's registry comes from
/// `MockRegistry.launched(environment:)` with a `MockServer`'s launch environment, and every request
/// on its session reaches the test's handlers on the server's registry, with its original URL.
final class LiveHandlerTests: XCTestCase {
    /// The registry an app launched with `server` in its environment makes.
    private func launchedApp(_ server: MockServer, _ extra: [String: String] = [:]) throws -> MockRegistry {
        var environment = extra
        environment.mockNetwork(server: server)
        return try XCTUnwrap(MockRegistry.launched(environment: environment))
    }

    func testTheHandlerSeesTheAppsURLMethodFieldsAndBody() async throws {
        let mocks = MockRegistry()
        let seen = Shared<URLRequest?>(nil)
        mocks.register("https://api.example.com/dogs?sort=name", method: "POST") { request in
            seen.update { $0 = request }
            return .json(#"{"id": 7}"#, status: 201, headers: ["X-Answer": "yes"])
        }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let (data, response) = try await withWatchdog(20) {
            var request = URLRequest(url: URL(string: "https://api.example.com/dogs?sort=name")!)
            request.httpMethod = "POST"
            request.setValue("Bearer abc", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"name":"Rex"}"#.utf8)
            return try await app.session.data(for: request)
        }
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 201)
        XCTAssertEqual(http.url?.absoluteString, "https://api.example.com/dogs?sort=name")
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Answer"), "yes")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(text(data), #"{"id": 7}"#)

        let request = try XCTUnwrap(seen.current)
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/dogs?sort=name")
        XCTAssertEqual(request.httpMethod, "POST")
        XCTAssertEqual(
            request.allHTTPHeaderFields, ["Authorization": "Bearer abc", "Content-Type": "application/json"],
            "the app's fields, none of the forwarding's or the forwarding session's")
        XCTAssertEqual(request.httpBody.map(text), #"{"name":"Rex"}"#)
        let logged = try XCTUnwrap(mocks.requests.first)
        XCTAssertEqual(logged.url.absoluteString, "https://api.example.com/dogs?sort=name")
        XCTAssertEqual(logged.headers.keys.sorted(), ["Authorization", "Content-Type"])
        XCTAssertEqual(logged.bodyText, #"{"name":"Rex"}"#)
        XCTAssertEqual(app.requests.map(\.url.absoluteString), ["https://api.example.com/dogs?sort=name"])
        XCTAssertEqual(mocks.failures, [])
    }

    func testAHandlerChangedMidTestAnswersTheNextRequest() async throws {
        let mocks = MockRegistry()
        let url = "https://api.example.com/flags"
        mocks.register(.url(url)) { _ in .text("beta off") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        try await withWatchdog(20) {
            let (first, _) = try await app.session.data(from: URL(string: url)!)
            XCTAssertEqual(text(first), "beta off")
            mocks.register(.url(url)) { _ in .text("beta on") }
            let (second, _) = try await app.session.data(from: URL(string: url)!)
            XCTAssertEqual(text(second), "beta on")
        }
        XCTAssertEqual(mocks.requests.count, 2)
    }

    func testAHeldRequestWaitsUntilTheTestReleasesIt() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/feed")
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let answered = Shared(false)
        try await withWatchdog(20) {
            async let feed = app.session.data(from: URL(string: "https://api.example.com/feed")!)
            let arrived = try await gate.arrived()
            XCTAssertEqual(arrived.url.absoluteString, "https://api.example.com/feed")
            XCTAssertFalse(answered.current, "the app is still waiting: its spinner shows")
            answered.update { $0 = true }
            gate.release(with: .text("loaded"))
            let (data, response) = try await feed
            XCTAssertEqual(text(data), "loaded")
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
        }
    }

    func testNextRequestAwaitsWhatTheAppSends() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com", path: "/events"), answer: .status(204))
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let recorded = try await withWatchdog(20) {
            async let next = mocks.nextRequest(matching: .host("api.example.com", path: "/events"), timeout: 10)
            var request = URLRequest(url: URL(string: "https://api.example.com/events")!)
            request.httpMethod = "POST"
            request.httpBody = Data("tapped=buy".utf8)
            let (_, response) = try await app.session.data(for: request)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 204)
            return try await next
        }
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.url.absoluteString, "https://api.example.com/events")
        XCTAssertEqual(recorded.bodyText, "tapped=buy")
    }

    func testARequestWithAWrongOrNoSecretIsRefusedAndNoHandlerRuns() async throws {
        let mocks = MockRegistry()
        let calls = Shared(0)
        mocks.register("https://api.example.com/user") { _ in
            calls.update { $0 += 1 }
            return .text("Ada")
        }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let session = plainSession()
        defer { session.finishTasksAndInvalidate() }
        for secret in ["0123", nil] {
            var request = URLRequest(url: server.url("/user"))
            request.setValue("https://api.example.com/user", forHTTPHeaderField: "MockNetwork-Forwarded-URL")
            if let secret { request.setValue(secret, forHTTPHeaderField: "MockNetwork-Forwarding-Secret") }
            let sent = request
            let (data, response) = try await withWatchdog(20) { try await session.data(for: sent) }
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 403)
            let expected =
                "MockServer: refused GET https://api.example.com/user, forwarded by an app "
                + (secret == nil ? "without the server's secret" : "with a secret that is not this server's")
            XCTAssertTrue(text(data).hasPrefix(expected), text(data))
        }
        XCTAssertEqual(calls.current, 0)
        XCTAssertEqual(mocks.requests.count, 0, "a refused request is not logged")
        XCTAssertEqual(mocks.failures.count, 2, "the test fails, saying why")
        XCTAssertTrue(
            mocks.failures.first?.message.contains("Fix: launch the app after app.launchEnvironment.mockNetwork")
                == true,
            "\(mocks.failures)")
    }

    func testAnAppLaunchedForAnotherServerFailsItsRequestSayingSo() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in .text("Ada") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        var environment: [String: String] = [:]
        environment.mockNetwork(server: server)
        environment["MOCKNETWORK_SERVER_SECRET"] = String(repeating: "ab", count: 32)
        let app = try XCTUnwrap(MockRegistry.launched(environment: environment))
        let error = try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: URL(string: "https://api.example.com/user")!)
                return nil
            } catch {
                return error as? URLError
            }
        }
        XCTAssertEqual(error?.code, .resourceUnavailable)
        XCTAssertTrue(
            error?.localizedDescription.hasPrefix(
                "MockServer: refused GET https://api.example.com/user, forwarded by an app with a secret") == true,
            error?.localizedDescription ?? "no error")
        XCTAssertEqual(mocks.requests.count, 0)
        XCTAssertEqual(mocks.failures.count, 1)
    }

    func testAStoppedServerFailsTheAppsRequestWithWhatToDo() async throws {
        let mocks = MockRegistry()
        let server = try MockServer(serving: mocks)
        let app = try launchedApp(server)
        server.stop()
        let error = try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: URL(string: "https://api.example.com/user")!)
                return nil
            } catch {
                return error as? URLError
            }
        }
        XCTAssertEqual(error?.code, .cannotConnectToHost)
        let message = error?.localizedDescription ?? ""
        XCTAssertTrue(
            message.hasPrefix(
                "MockNetwork: the UI test's MockServer at http://127.0.0.1:\(server.port) (MOCKNETWORK_SERVER) was "
                    + "not reachable, so GET https://api.example.com/user got no answer"), message)
        XCTAssertTrue(message.contains("The UI test must keep its MockServer running while the app runs"), message)
        XCTAssertEqual(error?.failingURL?.absoluteString, "https://api.example.com/user")
    }

    func testAnUnmatchedRequestFailsTheAppAndTheTestAsInAUnitTest() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/users") { _ in .text("[]") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let error = try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: URL(string: "https://api.example.com/user")!)
                return nil
            } catch {
                return error as? URLError
            }
        }
        XCTAssertEqual(error?.code, .resourceUnavailable)
        XCTAssertTrue(
            error?.localizedDescription.hasPrefix("MockNetwork: no handler for GET https://api.example.com/user")
                == true,
            error?.localizedDescription ?? "no error")
        XCTAssertEqual(mocks.failures.count, 1)
        XCTAssertTrue(mocks.failures.first?.message.contains("https://api.example.com/users") == true, "nearest match")
    }

    func testAHandlersErrorReachesTheAppAsItIs() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in throw URLError(.notConnectedToInternet) }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let error = try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: URL(string: "https://api.example.com/user")!)
                return nil
            } catch {
                return error as? URLError
            }
        }
        XCTAssertEqual(error?.code, .notConnectedToInternet)
        XCTAssertEqual(error?.failingURL?.absoluteString, "https://api.example.com/user")
    }

    /// The app under test is sandboxed by the test's registry: a forwarded request the registry would
    /// let through to the network (here a loopback server standing in for it) fails as unmatched, and
    /// the test fails saying why. Before, it reached the server ("leaked", 200) and nothing failed.
    func testAForwardedRequestNeverGoesToTheNetworkEvenWhenTheRegistryLetsItsHostThrough() async throws {
        let upstream = try LoopbackServer(
            routes: ["GET /user": .init(status: 200, headers: [("X-Served-By", "loopback")], text: "leaked")],
            maxRequests: 2, lifetime: 20)
        defer { upstream.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let url = try XCTUnwrap(upstream.url("/user"))
        let error = try await withWatchdog(20) { () -> URLError? in
            do {
                _ = try await app.session.data(from: url)
                return nil
            } catch {
                return error as? URLError
            }
        }
        XCTAssertEqual(error?.code, .resourceUnavailable)
        XCTAssertEqual(upstream.received.map(\.target), [], "nothing reached the network")
        XCTAssertEqual(mocks.requests.map(\.url), [url])
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(
            failures.first?.message.contains("forwarded by the app under test, matched no handler") == true,
            failures.first?.message ?? "no failure")
    }

    func testAHeadRequestGetsTheLengthAndNoBody() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/file") { _ in .text("twelve bytes") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let (data, response) = try await withWatchdog(20) {
            var request = URLRequest(url: URL(string: "https://api.example.com/file")!)
            request.httpMethod = "HEAD"
            return try await app.session.data(for: request)
        }
        XCTAssertEqual(data, Data())
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length"), "12")
        XCTAssertEqual(mocks.requests.map(\.method), ["HEAD"])
    }

    func testARedirectIsFollowedThroughTheTestsHandlers() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/old") { _ in
            .status(302, headers: ["Location": "https://api.example.com/new"])
        }
        mocks.register("https://api.example.com/new") { _ in .text("moved here") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let (data, response) = try await withWatchdog(20) {
            try await app.session.data(from: URL(string: "https://api.example.com/old")!)
        }
        XCTAssertEqual(text(data), "moved here")
        XCTAssertEqual(response.url?.absoluteString, "https://api.example.com/new")
        XCTAssertEqual(
            mocks.requests.map(\.url.absoluteString), ["https://api.example.com/old", "https://api.example.com/new"])
    }

    func testAStreamedAnswerArrivesWhole() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/chat") { _ in
            .events([ServerSentEvent(data: "one"), ServerSentEvent(data: "two")], every: .milliseconds(20))
        }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        let (data, response) = try await withWatchdog(20) {
            try await app.session.data(from: URL(string: "https://api.example.com/chat")!)
        }
        XCTAssertEqual(text(data), "data: one\n\ndata: two\n\n")
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "text/event-stream")
    }

    func testAPlainClientGetsTheServedOriginAndAnAppItsOwnURL() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("*", path: "/whoami")) { request in .text(request.url?.absoluteString ?? "") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let app = try launchedApp(server)
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let (plain, _) = try await session.data(from: server.url("/whoami"))
            XCTAssertEqual(text(plain), "https://api.example.com/whoami")
            let (forwarded, _) = try await app.session.data(from: URL(string: "http://other.example.org:8080/whoami")!)
            XCTAssertEqual(text(forwarded), "http://other.example.org:8080/whoami")
        }
    }

    func testCancellingTheAppsRequestCancelsTheTestsHandler() async throws {
        let mocks = MockRegistry()
        let started = Shared(false)
        let cancelled = AsyncStream<Void>.makeStream()
        mocks.register("https://api.example.com/slow") { _ async throws -> MockResponse in
            started.update { $0 = true }
            await withTaskCancellationHandler {
                // Waits until cancelled: the app gave up on the request.
                let never = AsyncStream<Void> { _ in }
                for await _ in never {}
            } onCancel: {
                cancelled.continuation.yield()
            }
            throw CancellationError()
        }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        let app = try launchedApp(server)
        try await withWatchdog(20) {
            let request = Task { try await app.session.data(from: URL(string: "https://api.example.com/slow")!) }
            _ = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: 10)
            request.cancel()
            var iterator = cancelled.stream.makeAsyncIterator()
            _ = await iterator.next()
            let result = await request.result
            XCTAssertEqual((result.error as? URLError)?.code, .cancelled)
        }
        XCTAssertTrue(started.current)
    }

    func testAScenarioAnswersFirstAndTheServerTheRest() async throws {
        let bundle = try temporaryBundle(self, files: ["Fixtures/standard/breeds.json": #"["Bengal"]"#])
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in .text("live") }
        mocks.register("https://api.example.com/breeds") { _ in .text("not this one") }
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        var environment = ["MOCKNETWORK_SCENARIO": "standard"]
        environment.mockNetwork(server: server)
        let app = try XCTUnwrap(
            MockRegistry.launched(
                stubs: ["https://api.example.com/breeds": "breeds"], in: bundle, environment: environment))
        try await withWatchdog(20) {
            let (breeds, _) = try await app.session.data(from: URL(string: "https://api.example.com/breeds")!)
            XCTAssertEqual(text(breeds), #"["Bengal"]"#)
            let (user, _) = try await app.session.data(from: URL(string: "https://api.example.com/user")!)
            XCTAssertEqual(text(user), "live")
        }
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), ["https://api.example.com/user"])
    }

    func testAServerThatIsNotOnLoopbackOrHasNoSecretFailsAtLaunch() throws {
        let cases: [([String: String], String)] = [
            (
                ["MOCKNETWORK_SERVER": "http://192.168.1.20:8080", "MOCKNETWORK_SERVER_SECRET": "ab"],
                "is not the URL of a server on this machine's loopback, such as http://127.0.0.1:54321"
            ),
            (
                ["MOCKNETWORK_SERVER": "http://127.0.0.1:8080"],
                "comes without the server's secret (MOCKNETWORK_SERVER_SECRET)"
            ),
        ]
        for (environment, reason) in cases {
            XCTAssertThrowsError(try MockRegistry.launched(environment: environment)) { error in
                XCTAssertEqual(
                    error as? MockLaunchError,
                    .invalidServer(environment["MOCKNETWORK_SERVER"]!, reason: reason))
                XCTAssertTrue("\(error)".contains("launchEnvironment.mockNetwork(server: server)"), "\(error)")
            }
        }
    }

    func testTheLaunchEnvironmentCarriesTheURLAndARandomSecret() throws {
        let first = try MockServer(serving: MockRegistry())
        let second = try MockServer(serving: MockRegistry())
        defer {
            first.stop()
            second.stop()
        }
        XCTAssertEqual(first.launchEnvironment["MOCKNETWORK_SERVER"], "http://127.0.0.1:\(first.port)")
        let secret = try XCTUnwrap(first.launchEnvironment["MOCKNETWORK_SERVER_SECRET"])
        XCTAssertEqual(secret.count, 64)
        XCTAssertTrue(secret.allSatisfy(\.isHexDigit))
        XCTAssertNotEqual(secret, second.launchEnvironment["MOCKNETWORK_SERVER_SECRET"])
        var environment = ["MOCKNETWORK_SCENARIO": "empty"]
        environment.mockNetwork(server: first)
        XCTAssertEqual(environment, first.launchEnvironment.merging(["MOCKNETWORK_SCENARIO": "empty"]) { $1 })
    }
}

private func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

extension Result {
    fileprivate var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
