import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redaction of what record mode writes: secrets never reach the file, and the rest stays byte for byte.
extension ArchiveRecordTests {
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
