import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Record mode against a real HTTP server on 127.0.0.1, and redaction of what is written.
final class ArchiveRecordTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveRecordTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private let userJSON = Data(#"{"id":1,"name":"Ada"}"#.utf8)

    private func makeServer() throws -> LoopbackServer {
        try LoopbackServer(
            routes: [
                "GET /users/1": .init(
                    status: 200, headers: [("Content-Type", "application/json"), ("X-Served-By", "loopback")],
                    body: userJSON),
                "POST /users?notify=false": .init(
                    status: 201, headers: [("Content-Type", "text/plain")], text: "created 2"),
            ], maxRequests: 8, lifetime: 20)
    }

    func testMissingModeRecordsOnlyWhatTheArchiveLacksAndKeepsItsEntries() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("Archives/users.har")
        let user = try XCTUnwrap(server.url("/users/1")).absoluteString
        let create = try XCTUnwrap(server.url("/users?notify=false")).absoluteString

        let first = MockRegistry()
        try first.useArchive(at: file, mode: .once)
        _ = try await send(first.session, "GET", user)
        first.reset()
        let before = try Data(contentsOf: file)
        XCTAssertEqual(server.received.count, 1)

        let second = MockRegistry()
        try second.useArchive(at: file, mode: .missing)
        let replayed = try await send(second.session, "GET", user)
        let created = try await send(second.session, "POST", create, body: Data("x".utf8))
        XCTAssertEqual(replayed.body, userJSON)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(server.received.map(\.method), ["GET", "POST"], "only the missing request reached the server")
        XCTAssertEqual(second.failures, [])

        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.method), ["GET", "POST"])
        let after = try Data(contentsOf: file)
        let firstEntry = try XCTUnwrap(
            String(data: before, encoding: .utf8)?.components(separatedBy: "\"entries\" : [").last)
        let kept = String(firstEntry.prefix(while: { $0 != "}" }))
        XCTAssertTrue(String(decoding: after, as: UTF8.self).contains(kept), "the entry it held is written as it was")
    }

    func testTwoRegistriesRecordingOneFileFailInsteadOfOverwriting() throws {
        let file = folder.appendingPathComponent("Archives/shared.har")
        let first = MockRegistry()
        try first.useArchive(at: file, mode: .rewrite)
        let second = MockRegistry()
        XCTAssertThrowsError(try second.useArchive(at: file, mode: .rewrite)) { error in
            guard case .archiveInUse(let path, let owner) = error as? MockNetworkError else {
                return XCTFail("expected archiveInUse, got \(error)")
            }
            XCTAssertEqual(path, file.path)
            XCTAssertTrue(owner.hasPrefix("the registry set up at MockNetworkTests/ArchiveRecordTests.swift:"), owner)
        }
        // The second's failed claim leaves the first's in place: a third fails too.
        let third = MockRegistry()
        XCTAssertThrowsError(try third.useArchive(at: file, mode: .missing)) { error in
            XCTAssertEqual((error as? MockNetworkError).map { "\($0)" }?.contains("is already recording"), true)
        }
        // Once the first is done with it, the file is free.
        first.reset()
        XCTAssertNoThrow(try second.useArchive(at: file, mode: .rewrite))
    }

    func testAFolderNamedLikeABundleInTheSourceTreeStillRecords() throws {
        let sources = folder.appendingPathComponent("dogs.app/Tests/Archives/ping.har")
        XCTAssertNoThrow(try MockRegistry().useArchive(at: sources, mode: .rewrite))
        let bundle = folder.appendingPathComponent("Fake.bundle")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data("<plist/>".utf8).write(to: bundle.appendingPathComponent("Info.plist"))
        let inBundle = bundle.appendingPathComponent("Archives/ping.har")
        XCTAssertThrowsError(try MockRegistry().useArchive(at: inBundle, mode: .rewrite)) { error in
            XCTAssertEqual(MockNetworkError(error), .archiveInBundle(path: inBundle.path))
        }
    }

    func testOnceRecordsWhatTheServerSentThenReplaysItWithoutTheServer() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("Archives/users.har")
        let user = try XCTUnwrap(server.url("/users/1")).absoluteString
        let create = try XCTUnwrap(server.url("/users?notify=false")).absoluteString
        let posted = Data(#"{"name":"Grace"}"#.utf8)

        let recording = MockRegistry()
        try recording.useArchive(at: file, mode: .once)
        let live = [
            try await send(recording.session, "GET", user, headers: ["Accept": "application/json"]),
            try await send(
                recording.session, "POST", create, headers: ["Content-Type": "application/json"], body: posted),
        ]
        XCTAssertEqual(live.map(\.status), [200, 201], "the client gets the real responses")
        XCTAssertEqual(live[0].body, userJSON)
        XCTAssertEqual(live[0].response.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        XCTAssertEqual(server.received.map(\.method), ["GET", "POST"])
        XCTAssertEqual(server.received.map(\.target), ["/users/1", "/users?notify=false"])
        XCTAssertEqual(server.received.last?.body, posted)
        XCTAssertEqual(recording.failures, [])

        // The file holds what the server sent.
        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.method), ["GET", "POST"])
        XCTAssertEqual(archive.entries.map(\.request.url), [user, create])
        XCTAssertEqual(archive.entries.map(\.response.status), [200, 201])
        XCTAssertEqual(archive.entries[0].response.body.data, userJSON)
        XCTAssertEqual(archive.entries[0].response.body.mimeType, "application/json")
        XCTAssertTrue(
            archive.entries[0].response.headers.contains {
                $0.name.lowercased() == "x-served-by" && $0.value == "loopback"
            })
        XCTAssertEqual(archive.entries[1].request.body?.data, posted)
        XCTAssertEqual(archive.entries[1].response.body.text, "created 2")
        XCTAssertEqual(archive.entries[0].request.headers.first { $0.name == "Accept" }?.value, "application/json")

        // Now the archive exists: `once` replays it, with the server gone.
        server.stop()
        let replaying = MockRegistry()
        try replaying.useArchive(at: file, mode: .once)
        let replayed = [
            try await send(replaying.session, "GET", user),
            try await send(replaying.session, "POST", create, body: posted),
        ]
        XCTAssertEqual(replayed.map(\.status), [200, 201])
        XCTAssertEqual(replayed.map(\.body), live.map(\.body))
        XCTAssertEqual(replayed[0].response.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        XCTAssertEqual(server.received.count, 2, "replay does not reach the server")
        XCTAssertEqual(replaying.failures, [])
    }

    func testRewriteRecordsAfresh() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("users.har")
        try HTTPArchive(entries: [
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: "https://old.example.com/stale"),
                response: HTTPArchive.Response(status: 200))
        ]).write(to: file)

        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)
        let reply = try await send(mocks.session, "GET", try XCTUnwrap(server.url("/users/1")).absoluteString)
        XCTAssertEqual(reply.body, userJSON)

        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.url), [try XCTUnwrap(server.url("/users/1")).absoluteString])
        XCTAssertEqual(server.received.count, 1)
    }

    func testHandlersStillAnswerWhileRecordingAndAreNotRecorded() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("mixed.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)
        mocks.register("https://auth.example.com/token") { _ in try .json(#"{"token":"t"}"#) }

        let token = try await send(mocks.session, "GET", "https://auth.example.com/token")
        XCTAssertEqual(token.status, 200)
        _ = try await send(mocks.session, "GET", try XCTUnwrap(server.url("/users/1")).absoluteString)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries.count, 1)
        XCTAssertEqual(mocks.exportedArchive().entries.count, 2, "export has both: what was stubbed and what was live")
    }

    func testNetworkFailureWhileRecordingIsReportedAndNotRecorded() async throws {
        let server = try makeServer()
        let address = try XCTUnwrap(server.url("/users/1")).absoluteString
        server.stop()
        let file = folder.appendingPathComponent("down.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)

        let error = await thrownError { try await send(mocks.session, "GET", address) }
        XCTAssertEqual((error as? URLError)?.code, .cannotConnectToHost)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries, [])
        let message = try XCTUnwrap(mocks.failures.first?.message)
        XCTAssertTrue(
            message.hasPrefix("MockNetwork: while recording \(file.path), GET \(address) failed on the real network"),
            message)
    }

    // MARK: Redaction

    func testARedactedQueryValueLeavesRedirectsAndBodiesToo() throws {
        let archive = try HTTPArchive(
            json: Data(
                #"""
                {"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [
                  {"startedDateTime": "2026-11-20T10:00:00Z", "time": 1,
                   "request": {"method": "GET", "url": "https://api.example.com/login?token=tok-98765&user=ada",
                     "httpVersion": "HTTP/1.1", "headers": [], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                   "response": {"status": 302, "statusText": "Found", "httpVersion": "HTTP/1.1",
                     "headers": [{"name": "Location", "value": "/home?token=tok-98765&tab=1"},
                                 {"name": "X-Note", "value": "issued tok-98765"}],
                     "cookies": [], "content": {"size": 9, "mimeType": "text/plain", "text": "tok-98765"},
                     "redirectURL": "/home?token=tok-98765&tab=1", "headersSize": -1, "bodySize": 9},
                   "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
                """#.utf8))
        let redacted = archive.redacted(HTTPArchive.Redaction(queryParameters: ["token"]))
        let text = String(decoding: try redacted.json(), as: UTF8.self)
        XCTAssertFalse(text.contains("tok-98765"), text)
        let entry = try XCTUnwrap(redacted.entries.first)
        XCTAssertEqual(entry.request.url, "https://api.example.com/login?user=ada")
        XCTAssertEqual(entry.response.headers.first { $0.name == "Location" }?.value, "/home?tab=1")
        XCTAssertEqual(entry.response.headers.first { $0.name == "X-Note" }?.value, "issued REDACTED")
        XCTAssertEqual(entry.response.body.text, "REDACTED")
        XCTAssertTrue(text.contains(#""redirectURL" : "/home?tab=1""#), text)
    }

    func testJSONKeysAreRedactedAtAnyDepthKeepingTheRestByteForByte() throws {
        func entry(_ url: String, request: String?, response: String, header: String = "none") -> HTTPArchive.Entry {
            HTTPArchive.Entry(
                request: HTTPArchive.Request(
                    method: request == nil ? "GET" : "POST", url: url, headers: [HTTPArchive.Header("X-Token", header)],
                    body: request.map { HTTPArchive.Body(Data($0.utf8), mimeType: "application/json") }),
                response: HTTPArchive.Response(
                    status: 200, body: HTTPArchive.Body(Data(response.utf8), mimeType: "application/json")))
        }
        let archive = HTTPArchive(entries: [
            entry(
                "https://api.example.com/login",
                request: #"{ "user" : "ada", "password" : "hunter2-long", "meta": {"n": [1, {"PASSWORD": 42}]} }"#,
                response: #"{"Access_Token":"tok-abc-123","expires":3600,"refresh":{"access_token":["a",{"b":null}]}}"#),
            entry(
                "https://api.example.com/sessions/tok-abc-123", request: nil, response: "password=hunter2-long",
                header: "Bearer tok-abc-123"),
            entry("https://api.example.com/broken", request: #"{"password": "cut-short"#, response: "[1,2"),
        ])
        let redacted = archive.redacted(HTTPArchive.Redaction(jsonKeys: ["password", "access_token"]))
        let entries = redacted.entries
        XCTAssertEqual(
            entries[0].request.body?.text,
            #"{ "user" : "ada", "password" : "REDACTED", "meta": {"n": [1, {"PASSWORD": "REDACTED"}]} }"#)
        XCTAssertEqual(
            entries[0].response.body.text,
            #"{"Access_Token":"REDACTED","expires":3600,"refresh":{"access_token":"REDACTED"}}"#)
        for body in [entries[0].request.body?.data, entries[0].response.body.data] {
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: try XCTUnwrap(body)), "still valid JSON")
        }
        // What the keys held is a secret wherever else it is: a URL, a header, a body that is not JSON.
        XCTAssertEqual(entries[1].request.url, "https://api.example.com/sessions/REDACTED")
        XCTAssertEqual(entries[1].request.headers.first?.value, "Bearer REDACTED")
        XCTAssertEqual(entries[1].response.body.text, "password=REDACTED")
        // Text that is not JSON is left to bodyStrings.
        XCTAssertEqual(entries[2].request.body?.text, #"{"password": "cut-short"#)
        XCTAssertEqual(entries[2].response.body.text, "[1,2")
    }

    func testValuesFoundByKeyAreCleanedFromOtherJSONOnlyInsideStrings() throws {
        func entry(_ request: String, _ response: String) -> HTTPArchive.Entry {
            HTTPArchive.Entry(
                request: HTTPArchive.Request(
                    method: "POST", url: "https://api.example.com/x",
                    body: HTTPArchive.Body(Data(request.utf8), mimeType: "application/json")),
                response: HTTPArchive.Response(
                    status: 200, body: HTTPArchive.Body(Data(response.utf8), mimeType: "application/json")))
        }
        let archive = HTTPArchive(entries: [
            entry(
                "\u{FEFF}" + #"{"pin":"2024","password":"password","key":"ab/cd-secret"}"#,
                #"{"key":"bob@example.com","pin":"ab\"cd"}"#),
            entry(
                #"{"year":2024,"note":"pin 2024","password":1,"hint":"password"}"#,
                #"{"escaped":"ab\/cd-secret","plain":"ab/cd-secret"}"#),
            entry(#"{"users":{"bob@example.com":{"id":1}},"note":"my ab\"cd!","key":"x"}"#, "{}"),
        ])
        let redacted = archive.redacted(HTTPArchive.Redaction(jsonKeys: ["pin", "password", "key"])).entries
        XCTAssertEqual(
            redacted[0].request.body?.data,
            Data("\u{FEFF}".utf8) + Data(#"{"pin":"REDACTED","password":"REDACTED","key":"REDACTED"}"#.utf8),
            "past a byte order mark")
        // Numbers and keys that hold the same characters stay; strings lose them, as written or escaped.
        XCTAssertEqual(
            redacted[1].request.body?.text,
            #"{"year":2024,"note":"pin REDACTED","password":"REDACTED","hint":"REDACTED"}"#)
        XCTAssertEqual(redacted[1].response.body.text, #"{"escaped":"REDACTED","plain":"REDACTED"}"#)
        // A value used as a key elsewhere goes too; one with a quote leaves the JSON valid.
        XCTAssertEqual(
            redacted[2].request.body?.text, #"{"users":{"REDACTED":{"id":1}},"note":"my REDACTED!","key":"REDACTED"}"#)
        for entry in redacted {
            for body in [entry.request.body?.data, entry.response.body.data] {
                XCTAssertNoThrow(try JSONSerialization.jsonObject(with: try XCTUnwrap(body)), "still valid JSON")
            }
        }
    }

    func testJSONKeysRecordedFromTheServerNeverReachTheFile() async throws {
        let server = try LoopbackServer(
            routes: [
                "POST /oauth/token": .init(
                    status: 200, headers: [("Content-Type", "application/json")],
                    text:
                        #"{"access_token":"SECRET-ACCESS","token_type":"bearer","tokens":{"refresh_token":"SECRET-REFRESH"}}"#
                ),
                "GET /me?session=SECRET-ACCESS": .init(
                    status: 200, headers: [("Content-Type", "application/json")], text: #"{"name":"Ada"}"#),
            ], maxRequests: 4, lifetime: 20)
        defer { server.stop() }
        let file = folder.appendingPathComponent("oauth.har")
        let redaction = HTTPArchive.Redaction(jsonKeys: ["password", "access_token", "refresh_token"])
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite, redaction: redaction)
        let login = try await send(
            mocks.session, "POST", try XCTUnwrap(server.url("/oauth/token")).absoluteString,
            headers: ["Content-Type": "application/json"],
            body: Data(#"{"username":"ada","password":"SECRET-PASSWORD"}"#.utf8))
        XCTAssertTrue(String(decoding: login.body, as: UTF8.self).contains("SECRET-ACCESS"), "the client got it")
        let me = try await send(
            mocks.session, "GET", try XCTUnwrap(server.url("/me?session=SECRET-ACCESS")).absoluteString)
        XCTAssertEqual(me.status, 200)

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in ["SECRET-PASSWORD", "SECRET-ACCESS", "SECRET-REFRESH"] {
            XCTAssertFalse(text.contains(secret), "\(secret) reached the file")
        }
        let entries = try HTTPArchive(contentsOf: file).entries
        XCTAssertEqual(entries.first?.request.body?.text, #"{"username":"ada","password":"REDACTED"}"#)
        XCTAssertEqual(
            entries.first?.response.body.text,
            #"{"access_token":"REDACTED","token_type":"bearer","tokens":{"refresh_token":"REDACTED"}}"#)
        XCTAssertEqual(entries.last?.request.url, try XCTUnwrap(server.url("/me?session=REDACTED")).absoluteString)
    }

    func testSecretsInEachPlaceNeverReachTheFile() async throws {
        let server = try LoopbackServer(
            routes: [
                "POST /login?api_key=SECRET-QUERY&user=ada": .init(
                    status: 200,
                    headers: [
                        ("Content-Type", "application/json"), ("Set-Cookie", "session=SECRET-SET-COOKIE; HttpOnly"),
                        ("X-Echo", "SECRET-BODY"),
                    ],
                    text: #"{"token":"SECRET-RESPONSE","user":"ada"}"#)
            ], maxRequests: 4, lifetime: 20)
        defer { server.stop() }
        let address = try XCTUnwrap(server.url("/login?api_key=SECRET-QUERY&user=ada")).absoluteString
        let file = folder.appendingPathComponent("login.har")
        let redaction = HTTPArchive.Redaction(
            queryParameters: ["api_key"], bodyStrings: ["SECRET-BODY", "SECRET-RESPONSE", ""])
        let headers = [
            "Authorization": "Bearer SECRET-AUTHORIZATION", "Cookie": "session=SECRET-COOKIE",
            "Content-Type": "application/json",
        ]
        let body = Data(#"{"user":"ada","password":"SECRET-BODY"}"#.utf8)

        let recording = MockRegistry()
        try recording.useArchive(at: file, mode: .rewrite, redaction: redaction)
        let live = try await send(recording.session, "POST", address, headers: headers, body: body)
        XCTAssertEqual(live.status, 200)
        XCTAssertEqual(String(decoding: live.body, as: UTF8.self), #"{"token":"SECRET-RESPONSE","user":"ada"}"#)
        let received = try XCTUnwrap(server.received.first)
        XCTAssertEqual(received.header("Authorization"), "Bearer SECRET-AUTHORIZATION", "the server got the secrets")
        XCTAssertEqual(received.target, "/login?api_key=SECRET-QUERY&user=ada")

        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in [
            "SECRET-AUTHORIZATION", "SECRET-COOKIE", "SECRET-SET-COOKIE", "SECRET-QUERY", "SECRET-BODY",
            "SECRET-RESPONSE",
        ] {
            XCTAssertFalse(text.contains(secret), "\(secret) reached the file")
        }
        let entry = try XCTUnwrap(try HTTPArchive(contentsOf: file).entries.first)
        XCTAssertEqual(entry.request.url, try XCTUnwrap(server.url("/login?user=ada")).absoluteString)
        XCTAssertEqual(entry.request.body?.text, #"{"user":"ada","password":"REDACTED"}"#)
        XCTAssertEqual(entry.response.body.text, #"{"token":"REDACTED","user":"ada"}"#)
        XCTAssertEqual(entry.response.headers.first { $0.name.lowercased() == "x-echo" }?.value, "REDACTED")
        XCTAssertFalse(entry.request.headers.contains { ["authorization", "cookie"].contains($0.name.lowercased()) })
        XCTAssertFalse(entry.response.headers.contains { $0.name.lowercased() == "set-cookie" })

        // The same redaction replays it: the request still carries its api_key, which is left out of matching.
        server.stop()
        let replaying = MockRegistry()
        try replaying.useArchive(at: file, mode: .never, redaction: redaction)
        let replayed = try await send(replaying.session, "POST", address, headers: headers, body: body)
        XCTAssertEqual(replayed.status, 200)
        XCTAssertEqual(String(decoding: replayed.body, as: UTF8.self), #"{"token":"REDACTED","user":"ada"}"#)
        let otherUser = await thrownError {
            try await send(replaying.session, "POST", address.replacingOccurrences(of: "user=ada", with: "user=bob"))
        }
        XCTAssertEqual((otherUser as? URLError)?.code, .resourceUnavailable, "the other query items still match")
    }
}

/// The XCTest base class records next to the test's source file.
final class ArchiveTestCaseTests: MockNetworkTestCase {
    func testUseArchiveRecordsIntoArchivesNextToTheSourceFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveTestCase-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try LoopbackServer(routes: ["GET /ping": .init(status: 200, text: "pong")], maxRequests: 2)
        defer { server.stop() }
        let source = folder.appendingPathComponent("PingTests.swift").path

        try useArchive("ping", mode: .once, filePath: source)
        let reply = try await send(session, "GET", try XCTUnwrap(server.url("/ping")).absoluteString)
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "pong")
        let file = folder.appendingPathComponent("Archives/ping.har")
        XCTAssertEqual(mocks.archiveFile?.standardizedFileURL, file.standardizedFileURL)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries.first?.response.body.text, "pong")
    }

    func testReplaysFromTheBundleWhenTheSourceTreeHasNoArchive() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
            .path
        try useArchive("chrome-shop", mode: .never, bundle: .module, filePath: elsewhere)
        let reply = try await send(session, "GET", "https://shop.example.com/api/products?page=1&sort=price")
        XCTAssertEqual(reply.status, 200)
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        XCTAssertEqual(mocks.archiveFile, bundled, "the archive it replays is the bundle's")
    }

    func testAnEntryMissingFromTheBundlesArchiveNamesItAndHowToRecordTheSource() async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
        try useArchive("chrome-shop", mode: .never, bundle: .module, filePath: source.path)
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        let sourceArchive = source.deletingLastPathComponent().appendingPathComponent("Archives/chrome-shop.har")

        let error = await thrownError { try await send(session, "GET", "https://shop.example.com/api/orders") }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        let lines = message.split(separator: "\n").map(String.init)
        let shown = "\(bundled.path) (from the bundle; its source is \(sourceArchive.path))"
        XCTAssertEqual(
            lines.first, "MockNetwork: no entry for GET https://shop.example.com/api/orders in the archive \(shown).")
        XCTAssertEqual(
            lines.last,
            "Fix: record it from the real server where the sources are: MOCKNETWORK_RECORD=missing swift test "
                + "--filter 'ArchiveTestCaseTests/testAnEntryMissingFromTheBundlesArchiveNamesItAndHowToRecordTheSource' "
                + "adds it to \(sourceArchive.path); the bundle gets it when the tests are built again (or correct the "
                + "URL the client builds).")
        XCTAssertTrue(
            (error as? URLError)?.localizedDescription.contains("in the archive \(shown)") == true,
            String(describing: error))
    }

    func testAFileInsideABundleIsReplayedWithAFixThatPointsAtTheSources() async throws {
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        try mocks.useArchive(at: bundled, mode: .never)
        let reply = try await send(session, "GET", "https://shop.example.com/api/products?page=1&sort=price")
        XCTAssertEqual(reply.status, 200)

        _ = await thrownError { try await send(session, "GET", "https://shop.example.com/api/orders") }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        XCTAssertTrue(message.contains("in the archive \(bundled.path) (a copy in a built bundle)."), message)
        XCTAssertTrue(
            message.hasSuffix(
                "Fix: this file is the copy a build put in the bundle, so recording into it would be lost. Record the "
                    + "archive in your source tree (useArchive(at:) with its path there, then MOCKNETWORK_RECORD=missing "
                    + "swift test) and build again (or correct the URL the client builds)."), message)
    }

    func testRecordingIntoABundlesCopyThrows() throws {
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        let before = try Data(contentsOf: bundled)
        for mode in [HTTPArchive.RecordMode.rewrite, .missing] {
            XCTAssertThrowsError(try mocks.useArchive(at: bundled, mode: mode)) { error in
                XCTAssertEqual(MockNetworkError(error), .archiveInBundle(path: bundled.path), "\(mode)")
                XCTAssertTrue("\(error)".contains("Record the archive in your source tree"), "\(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: bundled), before, "the bundle's copy is untouched")
        XCTAssertNil(mocks.archiveFile)
        try mocks.useArchive(at: bundled, mode: .once)
        XCTAssertEqual(mocks.archiveFile, bundled, "once: it exists, so it is replayed")
    }

    func testWithoutArchiveOrBundleTheErrorSaysHowToRecord() {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
            .path
        XCTAssertThrowsError(try useArchive("absent", mode: .never, bundle: .module, filePath: elsewhere)) { error in
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: there is no archive at \(FileManager.default.temporaryDirectory.path)/NoSourceTree/Archives/"
                    + "absent.har to replay. Record it from the real server: MOCKNETWORK_RECORD=once swift test "
                    + "--filter 'ArchiveTestCaseTests/testWithoutArchiveOrBundleTheErrorSaysHowToRecord'")
        }
    }

    func testReplaysTheCommittedArchiveNextToThisFile() async throws {
        try useArchive("baseClassUser")
        let reply = try await send(session, "GET", "https://api.example.com/users/7")
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), #"{"id":7,"name":"Hopper"}"#)
    }
}

/// `Unmatched.passToNetwork` sends what no handler answers to the real server.
final class PassToNetworkTests: XCTestCase {
    func testUnmatchedRequestsReachTheServerAndHandlersStillAnswer() async throws {
        let server = try LoopbackServer(
            routes: ["PUT /live?x=1": .init(status: 202, headers: [("X-Live", "yes")], text: "from the server")],
            maxRequests: 4)
        defer { server.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork)
        let live = try XCTUnwrap(server.url("/live?x=1")).absoluteString
        mocks.register("https://api.example.com/stubbed") { _ in try .text("stubbed") }

        let stubbed = try await send(mocks.session, "GET", "https://api.example.com/stubbed")
        XCTAssertEqual(String(decoding: stubbed.body, as: UTF8.self), "stubbed")
        let reply = try await send(mocks.session, "PUT", live, body: Data("payload".utf8))
        XCTAssertEqual(reply.status, 202)
        XCTAssertEqual(reply.response.value(forHTTPHeaderField: "X-Live"), "yes")
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "from the server")
        XCTAssertEqual(server.received.map(\.method), ["PUT"])
        XCTAssertEqual(server.received.first?.body, Data("payload".utf8))
        XCTAssertEqual(mocks.requests.count, 2, "requests passed on are logged too")
        XCTAssertEqual(mocks.failures, [])
        let again = try await send(mocks.session, "GET", "https://api.example.com/stubbed")
        XCTAssertNil(again.response.value(forHTTPHeaderField: "X-Live"))
    }

    /// Cancelling a request while the server is still answering it cancels the request MockNetwork
    /// made for it. (`stopLoading` runs on Foundation's queue; cancelling a task from there must not
    /// wait for that queue.)
    func testCancellingARequestPassedToTheServerEndsIt() async throws {
        let server = try LoopbackServer(routes: ["GET /slow": .init(text: "late", delay: 2)], maxRequests: 2)
        defer { server.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork)
        let slow = try XCTUnwrap(server.url("/slow"))
        let finished = expectation(description: "completion")
        let outcome = Shared<(any Error)?>(nil)
        // A regression deadlocks Foundation's queue, and with it every later request: end the run then.
        let completed = Shared(false)
        let task = mocks.session.dataTask(with: slow) { _, _, error in
            outcome.update { $0 = error }
            completed.update { $0 = true }
            finished.fulfill()
        }
        task.resume()
        try await withWatchdog(10) {
            for _ in 0..<1_000 where server.received.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        }
        XCTAssertEqual(server.received.map(\.target), ["/slow"])
        let cancelledAt = Date()
        endRunUnlessFinished(completed, within: 20, "cancelling a request passed to the server")
        task.cancel()
        await fulfillment(of: [finished], timeout: 5)
        XCTAssertEqual((outcome.current as? URLError)?.code, .cancelled)
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1, "ended at the cancel, not when the server answered")
    }
}
