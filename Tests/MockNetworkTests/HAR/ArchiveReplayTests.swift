import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Replaying HAR archives: files, bundles, browsers' exports, ordered duplicates, broken archives,
/// missing entries, and export then re-import.
final class ArchiveReplayTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveReplayTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ text: String, to name: String) throws -> URL {
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    private let userArchive = """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"startedDateTime": "2026-11-20T10:00:00Z", "time": 5,
           "request": {"method": "GET", "url": "https://api.example.com/users/1", "httpVersion": "HTTP/1.1",
                       "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                        "headers": [{"name": "Content-Type", "value": "application/json"},
                                    {"name": "X-Rate-Limit", "value": "99"}],
                        "cookies": [], "content": {"size": 14, "mimeType": "application/json", "text": "{\\"name\\":\\"Ada\\"}"},
                        "redirectURL": "", "headersSize": -1, "bodySize": 14},
           "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}},
          {"startedDateTime": "2026-11-20T10:00:01Z", "time": 5,
           "request": {"method": "DELETE", "url": "https://api.example.com/users/1", "httpVersion": "HTTP/1.1",
                       "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 204, "statusText": "No Content", "httpVersion": "HTTP/1.1", "headers": [],
                        "cookies": [], "content": {"size": 0, "mimeType": ""},
                        "redirectURL": "", "headersSize": -1, "bodySize": 0},
           "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 0}}
        ]}}
        """

    // MARK: Replay

    func testEntriesAnswerWithTheirStatusHeadersAndBody() async throws {
        let file = try write(userArchive, to: "user.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .never)

        let user = try await send(mocks.session, "GET", "https://api.example.com/users/1")
        XCTAssertEqual(user.status, 200)
        XCTAssertEqual(String(decoding: user.body, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertEqual(user.response.value(forHTTPHeaderField: "X-Rate-Limit"), "99")
        XCTAssertEqual(user.response.value(forHTTPHeaderField: "Content-Type"), "application/json")
        let deleted = try await send(mocks.session, "DELETE", "https://api.example.com/users/1")
        XCTAssertEqual(deleted.status, 204)
        XCTAssertEqual(deleted.body, Data())
        XCTAssertEqual(mocks.archiveFile, file)
        XCTAssertEqual(mocks.failures, [])
    }

    func testDefaultMatchingIsMethodAndFullURL() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(json: Data(userArchive.utf8)))
        for (method, address) in [
            ("POST", "https://api.example.com/users/1"), ("GET", "https://api.example.com/users/1?x=1"),
            ("GET", "https://api.example.com/users/2"),
        ] {
            let error = await thrownError { try await send(mocks.session, method, address) }
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable, "\(method) \(address)")
        }
        XCTAssertEqual(mocks.failures.count, 3)
    }

    func testMethodAndPathMatchingIgnoresTheQuery() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(json: Data(userArchive.utf8)), matching: .methodAndPath)
        let user = try await send(mocks.session, "GET", "https://api.example.com/users/1?fields=name&v=2")
        XCTAssertEqual(String(decoding: user.body, as: UTF8.self), #"{"name":"Ada"}"#)
    }

    /// An archive of `count` GETs of `/feed?page=N`, answered `answer N`.
    private func pagedArchive(_ count: Int) -> String {
        let entries = (1...count).map { page in
            #"{"startedDateTime": "2026-11-20T10:00:00Z", "time": 1, "#
                + #""request": {"method": "GET", "url": "https://api.example.com/feed?page=\#(page)", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0}, "#
                + #""response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "content": {"size": 1, "mimeType": "text/plain", "text": "answer \#(page)"}, "redirectURL": "", "headersSize": -1, "bodySize": 1}, "#
                + #""cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}"#
        }
        return #"{"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": ["#
            + entries.joined(separator: ",") + "]}}"
    }

    func testMethodAndPathReplaysEntriesForOnePathInRecordedOrder() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(json: Data(pagedArchive(3).utf8)), matching: .methodAndPath)
        var texts: [String] = []
        for _ in 0..<4 {
            texts.append(try await send(mocks.session, "GET", "https://api.example.com/feed?page=9").text)
        }
        XCTAssertEqual(texts, ["answer 1", "answer 2", "answer 3", "answer 3"])
        XCTAssertEqual(mocks.registered.count, 1, "one route answers the path's entries in order")
    }

    func testManyEntriesForOnePathReplayInOrder() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(json: Data(pagedArchive(3_000).utf8)), matching: .methodAndPath)
        var last = ""
        for _ in 0..<3_000 { last = try await send(mocks.session, "GET", "https://api.example.com/feed").text }
        XCTAssertEqual(last, "answer 3000")
    }

    func testChromesErrorInsideTheResponseNamesTheFailure() async throws {
        let archive = try HTTPArchive(
            json: Data(
                #"""
                {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [
                  {"startedDateTime": "2026-11-20T10:00:00Z", "time": 1,
                   "request": {"method": "GET", "url": "https://ads.example.com/pixel", "httpVersion": "",
                     "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                   "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                     "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1,
                     "bodySize": -1, "_transferSize": 0, "_error": "net::ERR_BLOCKED_BY_CLIENT"},
                   "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
                """#.utf8))
        XCTAssertEqual(archive.entries.first?.error, "net::ERR_BLOCKED_BY_CLIENT")
        let mocks = MockRegistry()
        try mocks.replay(archive)
        let error = await thrownError { try await send(mocks.session, "GET", "https://ads.example.com/pixel") }
        XCTAssertEqual((error as? URLError)?.code, .networkConnectionLost)
        XCTAssertEqual(
            (error as? URLError)?.localizedDescription,
            "MockNetwork: the archive's entry for GET https://ads.example.com/pixel has no response "
                + "(net::ERR_BLOCKED_BY_CLIENT).")
    }

    /// One entry whose response's `status` and `content` are as given.
    private func archive(status: String, content: String) -> Data {
        Data(
            (#"{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{"startedDateTime": "2026-11-20T10:00:00Z", "time": 1, "request": {"method": "GET", "url": "https://api.example.com/a", "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0}, "response": {"status": "#
                + status
                + #", "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [], "cookies": [], "content": "#
                + content + #", "redirectURL": "", "headersSize": -1, "bodySize": 0}, "cache": {}, "timings": {}}]}}"#)
                .utf8)
    }

    func testBrokenValuesAreReportedAtTheirPathWithTheFixOnce() throws {
        let ok = #"{"size": 2, "mimeType": "text/plain", "text": "ok"}"#
        XCTAssertThrowsError(try HTTPArchive(json: archive(status: "200.5", content: ok), file: "a.har")) { error in
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: the HAR archive a.har is broken at log.entries[0].response.status: expected a whole "
                    + "number, found 200.5. Fix the file, or record it again (MOCKNETWORK_RECORD=rewrite).")
        }
        let badBase64 = #"{"size": 2, "mimeType": "image/png", "text": "%%%", "encoding": "base64"}"#
        XCTAssertThrowsError(try HTTPArchive(json: archive(status: "200", content: badBase64), file: "b.har")) {
            error in
            let text = "\(error)"
            XCTAssertTrue(
                text.hasPrefix("MockNetwork: the HAR archive b.har is broken at log.entries[0].response.content"), text)
            XCTAssertEqual(text.components(separatedBy: "Fix the file").count, 2, text)
        }
    }

    func testAnArchiveThatCannotBeWrittenNamesItsFile() throws {
        let blocker = folder.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: blocker)
        let file = blocker.appendingPathComponent("Archives/login.har")
        XCTAssertThrowsError(try HTTPArchive().write(to: file)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("MockNetwork: cannot write the HAR archive \(file.path): its folder "), text)
        }
    }

    func testCustomMatchingUsesRequestMatchRules() async throws {
        let mocks = MockRegistry()
        try mocks.replay(
            try HTTPArchive(json: Data(userArchive.utf8)),
            matching: .custom {
                .host("*.example.com", path: URL(string: $0.request.url)?.path).method($0.request.method)
            })
        let user = try await send(mocks.session, "GET", "http://eu.api.example.com/users/1")
        XCTAssertEqual(user.status, 200)
    }

    func testHandlersRegisteredByTheTestWinOverTheArchive() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(json: Data(userArchive.utf8)))
        mocks.register("https://api.example.com/users/1") { _ in .status(503) }
        let user = try await send(mocks.session, "GET", "https://api.example.com/users/1")
        XCTAssertEqual(user.status, 503)
    }

    func testSeveralEntriesForOneRequestAnswerInOrderThenTheLastRepeats() async throws {
        var archive = HTTPArchive()
        for (index, state) in ["queued", "running", "done"].enumerated() {
            archive.entries.append(
                HTTPArchive.Entry(
                    request: HTTPArchive.Request(method: "GET", url: "https://api.example.com/jobs/9"),
                    response: HTTPArchive.Response(
                        status: index == 0 ? 202 : 200, body: HTTPArchive.Body(Data(state.utf8)))))
        }
        archive.entries.insert(
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "POST", url: "https://api.example.com/jobs"),
                response: HTTPArchive.Response(status: 201)), at: 1)
        let mocks = MockRegistry()
        try mocks.replay(archive)

        var seen: [String] = []
        for _ in 0..<4 {
            let reply = try await send(mocks.session, "GET", "https://api.example.com/jobs/9")
            seen.append("\(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        XCTAssertEqual(seen, ["202 queued", "200 running", "200 done", "200 done"])
        let created = try await send(mocks.session, "POST", "https://api.example.com/jobs")
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(mocks.registered.count, 2, "one route per distinct request")
    }

    func testRedirectEntriesAreFollowedAsRecorded() async throws {
        let archive = HTTPArchive(entries: [
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: "https://api.example.com/old"),
                response: HTTPArchive.Response(status: 301, headers: [HTTPArchive.Header("Location", "/new")])),
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: "https://api.example.com/new"),
                response: HTTPArchive.Response(status: 200, body: HTTPArchive.Body(Data("moved".utf8)))),
        ])
        let mocks = MockRegistry()
        try mocks.replay(archive)
        let reply = try await send(mocks.session, "GET", "https://api.example.com/old")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "moved")
        XCTAssertEqual(reply.response.url?.absoluteString, "https://api.example.com/new")
    }

    // MARK: Browsers' archives

    func testChromeArchiveWithBase64BodiesLoadsAsItIs() async throws {
        let archive = try HTTPArchive(named: "chrome-shop", in: .module)
        XCTAssertEqual(archive.entries.count, 4)
        let mocks = MockRegistry()
        try mocks.replay(archive)

        let products = try await send(
            mocks.session, "GET", "https://shop.example.com/api/products?page=1&sort=price")
        XCTAssertEqual(products.status, 200)
        XCTAssertEqual(
            String(decoding: products.body, as: UTF8.self), #"[{"id":1,"name":"Kettle"},{"id":2,"name":"Mug"}]"#)
        XCTAssertEqual(products.response.value(forHTTPHeaderField: "x-request-id"), "abc123")
        XCTAssertNil(
            products.response.value(forHTTPHeaderField: "content-encoding"),
            "the archive holds the decoded body, so its content-encoding is not replayed")
        XCTAssertEqual(products.response.value(forHTTPHeaderField: "set-cookie"), "a=1, b=2")

        let image = try await send(mocks.session, "GET", "https://cdn.example.com/img/kettle.png")
        XCTAssertEqual(
            [UInt8](image.body),
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, 0x49, 0x48, 0x44, 0x52, 0xFF, 0x00, 0xFE])
        XCTAssertEqual(image.response.value(forHTTPHeaderField: "Content-Type"), "image/png")

        let cart = try await send(
            mocks.session, "POST", "https://shop.example.com/api/cart",
            body: Data(#"{"productId":2,"quantity":1}"#.utf8))
        XCTAssertEqual(cart.status, 201)
        XCTAssertEqual(String(decoding: cart.body, as: UTF8.self), #"{"cartId":7}"#)

        let blocked = await thrownError { try await send(mocks.session, "GET", "https://tracker.example.com/beacon") }
        XCTAssertEqual((blocked as? URLError)?.code, .networkConnectionLost)
        XCTAssertTrue(
            (blocked as? URLError)?.localizedDescription.contains("net::ERR_BLOCKED_BY_CLIENT") == true,
            "\(String(describing: blocked))")
    }

    func testFirefoxAndSafariArchivesLoadAsTheyAre() async throws {
        let mocks = MockRegistry()
        try mocks.replay(try HTTPArchive(named: "Archives/firefox-cart.har", in: .module))
        try mocks.replay(try HTTPArchive(named: "safari-profile", in: .module))

        let deleted = try await send(mocks.session, "DELETE", "https://shop.example.com/api/cart/7")
        XCTAssertEqual(deleted.status, 204)
        let cart = try await send(mocks.session, "GET", "https://shop.example.com/api/cart")
        XCTAssertEqual(String(decoding: cart.body, as: UTF8.self), #"{"items":[]}"#)
        let profile = try await send(mocks.session, "GET", "https://shop.example.com/api/profile")
        XCTAssertEqual(String(decoding: profile.body, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertEqual(profile.response.value(forHTTPHeaderField: "Cache-Control"), "no-store")
    }

    func testMissingBundleArchiveNamesWhereItLooked() {
        XCTAssertThrowsError(try HTTPArchive(named: "nope", in: .module)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("no archive \"nope.har\" in the bundle"), text)
            XCTAssertTrue(text.contains("Archives/, Fixtures/ and Fixtures/Archives/"), text)
        }
    }

    // MARK: Broken archives

    private func loadError(_ json: String) throws -> HTTPArchive.LoadError? {
        let file = try write(json, to: "broken.har")
        do {
            _ = try HTTPArchive(contentsOf: file)
            XCTFail("the archive loaded")
            return nil
        } catch let error as HTTPArchive.LoadError {
            XCTAssertEqual(error.file, file.path)
            XCTAssertTrue(error.description.contains(file.path), error.description)
            return error
        }
    }

    func testBrokenArchiveNamesTheFileTheJSONPathAndWhatWasExpected() throws {
        let wrongType = try loadError(
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/x"}, "response": {"status": 200}},"#
                + #" {"request": {"method": "GET", "url": "https://a.example/y"}, "response": {"status": "200"}}]}}"#)
        XCTAssertEqual(wrongType?.path, "log.entries[1].response.status")
        XCTAssertTrue(wrongType?.problem.hasPrefix("expected a number") == true, wrongType?.problem ?? "")
        XCTAssertTrue(
            wrongType?.description.hasPrefix(
                "MockNetwork: the HAR archive \(folder.path)/broken.har is broken at "
                    + "log.entries[1].response.status: expected a number") == true,
            wrongType?.description ?? "")

        let missing = try loadError(
            #"{"log": {"entries": [{"request": {"method": "GET"}, "response": {"status": 200}}]}}"#)
        XCTAssertEqual(missing?.path, "log.entries[0].request.url")
        XCTAssertEqual(missing?.problem, "expected the field \"url\", which is missing")

        let noLog = try loadError(#"{"entries": []}"#)
        XCTAssertEqual(noLog?.path, "log")

        let badURL = try loadError(
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "/relative"}, "response": {"status": 200}}]}}"#)
        XCTAssertEqual(badURL?.path, "log.entries[0].request.url")
        XCTAssertEqual(badURL?.problem, "expected an absolute URL, found \"/relative\"")

        let badStatus = try loadError(
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/"}, "response": {"status": 42}}]}}"#
        )
        XCTAssertEqual(badStatus?.path, "log.entries[0].response.status")

        let badBase64 = try loadError(
            #"{"log": {"entries": [{"request": {"method": "GET", "url": "https://a.example/"}, "#
                + #""response": {"status": 200, "content": {"text": "%%%", "encoding": "base64"}}}]}}"#)
        XCTAssertEqual(badBase64?.path, "log.entries[0].response.content.text")
        XCTAssertTrue(badBase64?.problem.contains("not valid base64") == true, badBase64?.problem ?? "")

        let notJSON = try loadError(#"{"log": {"entries": [ }"#)
        XCTAssertEqual(notJSON?.path, "")
        XCTAssertTrue(notJSON?.problem.hasPrefix("expected HAR JSON") == true, notJSON?.problem ?? "")
    }

    func testUnreadableFileSaysSo() {
        let file = folder.appendingPathComponent("absent.har")
        XCTAssertThrowsError(try HTTPArchive(contentsOf: file)) { error in
            XCTAssertTrue(
                "\(error)".contains("cannot load the HAR archive \(file.path): the file cannot be read"), "\(error)")
        }
    }

    // MARK: Missing entries

    func testRequestMissingFromTheArchiveFailsNamingItTheArchiveAndTheRecordCommand() async throws {
        let file = try write(userArchive, to: "user.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .never)

        let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/users/2") }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        let message = try XCTUnwrap(mocks.failures.first?.message)
        let lines = message.split(separator: "\n").map(String.init)
        XCTAssertEqual(
            lines.first, "MockNetwork: no entry for GET https://api.example.com/users/2 in the archive \(file.path).")
        XCTAssertTrue(lines.contains { $0.hasPrefix("Nearest: GET https://api.example.com/users/1 (path") }, message)
        XCTAssertEqual(
            lines.last,
            "Fix: record it from the real server, which adds it to this test's archive and keeps the rest: "
                + "MOCKNETWORK_RECORD=missing "
                + "swift test (or correct the URL the client builds).")
    }

    func testAMissingEntrysErrorNamesTheArchive() async throws {
        let file = try write(userArchive, to: "user.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .never)
        let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/users/2") }
        XCTAssertEqual(
            (error as? URLError)?.localizedDescription,
            "MockNetwork: no entry for GET https://api.example.com/users/2 in the archive \(file.path) (nothing "
                + "registered matches; the test's failure says why and how to fix it).")
        _ = mocks.takeFailures()
    }

    // MARK: Latency

    /// One GET that took 400 ms when recorded, and one that took 5 s.
    private func timedArchive() throws -> URL {
        func entry(_ path: String, time: Int) -> String {
            """
            {"startedDateTime": "2026-11-20T10:00:00Z", "time": \(time),
             "request": {"method": "GET", "url": "https://api.example.com\(path)", "httpVersion": "HTTP/1.1",
                         "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "headers": [],
                          "cookies": [], "content": {"size": 2, "mimeType": "text/plain", "text": "ok"},
                          "redirectURL": "", "headersSize": -1, "bodySize": 2},
             "cache": {}, "timings": {"send": 0, "wait": \(time), "receive": 0}}
            """
        }
        return try write(
            """
            {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
              \(entry("/slow", time: 400)), \(entry("/slower", time: 5000))]}}
            """, to: "timed.har")
    }

    func testRecordedLatencyWaitsTheEntrysScaledTime() async throws {
        let mocks = MockRegistry()
        try mocks.useArchive(at: try timedArchive(), mode: .never, latency: .recorded(scale: 0.5))
        let start = Date()
        let reply = try await send(mocks.session, "GET", "https://api.example.com/slow")
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "ok")
        XCTAssertGreaterThanOrEqual(elapsed, 0.19, "answered after half of the recorded 400 ms")
        XCTAssertEqual(try XCTUnwrap(mocks.exportedArchive().entries.first?.time), 200, accuracy: 0.001)
    }

    func testWithoutLatencyOrWithAScaleBelowZeroEntriesAnswerAtOnce() async throws {
        for latency in [HTTPArchive.Latency.none, .recorded(scale: -1), .recorded(scale: .nan)] {
            let mocks = MockRegistry()
            try mocks.useArchive(at: try timedArchive(), mode: .never, latency: latency)
            _ = try await send(mocks.session, "GET", "https://api.example.com/slower")
            XCTAssertEqual(mocks.exportedArchive().entries.first?.time, 0, "\(latency)")
        }
    }

    func testARecordedWaitPastTheTimeoutTimesOut() async throws {
        let mocks = MockRegistry()
        try mocks.useArchive(at: try timedArchive(), mode: .never, latency: .recorded())
        var request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/slower")))
        request.timeoutInterval = 0.3
        let error = await thrownError { try await mocks.session.data(for: request) }
        XCTAssertEqual((error as? URLError)?.code, .timedOut)
    }

    func testReplayingAnArchiveThatDoesNotExistSaysHowToRecordIt() {
        let file = folder.appendingPathComponent("never-recorded.har")
        XCTAssertThrowsError(try MockRegistry().useArchive(at: file, mode: .never)) { error in
            XCTAssertEqual(
                error as? ArchiveError,
                .missingArchive(path: file.path, command: "MOCKNETWORK_RECORD=once swift test"))
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: there is no archive at \(file.path) to replay. Record it from the real server: "
                    + "MOCKNETWORK_RECORD=once swift test")
        }
    }

    func testRecordModeComesFromTheEnvironment() throws {
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment([:]), .never)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": ""]), .never)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "none"]), .never)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "once"]), .once)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "REWRITE"]), .rewrite)
        XCTAssertThrowsError(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "all"])) { error in
            XCTAssertEqual(error as? ArchiveError, .invalidRecordMode("all"))
            XCTAssertTrue("\(error)".contains("MOCKNETWORK_RECORD=all is not a record mode"), "\(error)")
        }
    }

    // MARK: Export

    func testExportThenReimportGivesTheSameAnswers() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/users/1") { _ in .json(#"{"name":"Ada"}"#).header("ETag", "v1") }
        mocks.register(.url("https://api.example.com/users").method("POST")) { request in
            .json(#"{"id":2}"#, status: 201)
        }
        mocks.register("https://api.example.com/avatar") { _ in .data(Data([0, 255, 1, 254])) }
        mocks.register("https://api.example.com/offline") { _ in .failure(.notConnectedToInternet) }
        let posted = Data(#"{"name":"Grace"}"#.utf8)
        let first = [
            try await send(mocks.session, "GET", "https://api.example.com/users/1"),
            try await send(
                mocks.session, "POST", "https://api.example.com/users", headers: ["Content-Type": "application/json"],
                body: posted),
            try await send(mocks.session, "GET", "https://api.example.com/avatar"),
        ]
        _ = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/offline") }

        let file = folder.appendingPathComponent("exported.har")
        try mocks.exportedArchive().write(to: file)
        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.method), ["GET", "POST", "GET", "GET"])
        XCTAssertEqual(archive.entries.map(\.response.status), [200, 201, 200, 0])
        XCTAssertTrue(
            archive.entries.allSatisfy {
                $0.startedDateTime.range(
                    of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil
            }, "\(archive.entries.map(\.startedDateTime))")
        XCTAssertEqual(archive.entries[1].request.body?.data, posted)
        XCTAssertEqual(archive.entries[1].request.body?.mimeType, "application/json")
        XCTAssertTrue(archive.entries[3].error?.contains("\(URLError.Code.notConnectedToInternet.rawValue)") == true)
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains(#""encoding" : "base64""#), "a body that is not UTF-8 is written in base64")
        XCTAssertTrue(text.contains(#""version" : "1.2""#))

        let replayed = MockRegistry()
        try replayed.replay(archive)
        let second = [
            try await send(replayed.session, "GET", "https://api.example.com/users/1"),
            try await send(replayed.session, "POST", "https://api.example.com/users", body: posted),
            try await send(replayed.session, "GET", "https://api.example.com/avatar"),
        ]
        XCTAssertEqual(second.map(\.status), first.map(\.status))
        XCTAssertEqual(second.map(\.body), first.map(\.body))
        XCTAssertEqual(second[0].response.value(forHTTPHeaderField: "ETag"), "v1")
        XCTAssertEqual(second[0].response.value(forHTTPHeaderField: "Content-Type"), "application/json")
        let offline = await thrownError { try await send(replayed.session, "GET", "https://api.example.com/offline") }
        XCTAssertEqual((offline as? URLError)?.code, .networkConnectionLost)
    }

    func testExportRedactsByDefaultAndKeepsOnlyAnsweredRequests() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/me") { _ in .text("me").header("Set-Cookie", "session=abc") }
        _ = try await send(mocks.session, "GET", "https://api.example.com/me", headers: ["Authorization": "Bearer xyz"])
        let archive = mocks.exportedArchive()
        XCTAssertEqual(archive.entries.count, 1)
        XCTAssertFalse(archive.entries[0].request.headers.contains { $0.name == "Authorization" })
        XCTAssertFalse(archive.entries[0].response.headers.contains { $0.name == "Set-Cookie" })
        let everything = mocks.exportedArchive(redaction: .nothing)
        XCTAssertTrue(everything.entries[0].request.headers.contains(HTTPArchive.Header("Authorization", "Bearer xyz")))
    }
}
