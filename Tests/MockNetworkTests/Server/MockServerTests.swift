import Foundation
import MockNetwork
import MockNetworkServer
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private func fetch(_ request: URLRequest) async throws -> (HTTPURLResponse, String) {
    try await fetchText(request)
}

private func fetch(_ url: URL) async throws -> (HTTPURLResponse, String) {
    try await fetch(URLRequest(url: url))
}

/// A registry served over HTTP answers a plain `URLSession` (no protocol class: a real exchange on
/// 127.0.0.1) as its own session would: its handlers of every kind, its log, its failures, and the
/// URLs the handlers were registered for.
final class MockServerTests: XCTestCase {
    func testASyncHandlerAnswersWithTheURLItWasRegisteredFor() async throws {
        let mocks = MockRegistry()
        let seen = Shared<URLRequest?>(nil)
        mocks.register("https://api.example.com/user") { request in
            seen.update { $0 = request }
            return .json(#"{"name": "Ada"}"#, headers: ["X-Answer": "yes"])
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            var request = URLRequest(url: server.url("/user"))
            request.setValue("secret", forHTTPHeaderField: "X-Token")
            let (response, body) = try await fetch(request)
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(body, #"{"name": "Ada"}"#)
            XCTAssertEqual(response.value(forHTTPHeaderField: "X-Answer"), "yes")
            XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "application/json")
        }
        let request = try XCTUnwrap(seen.current)
        XCTAssertEqual(request.url?.absoluteString, "https://api.example.com/user")
        XCTAssertEqual(request.value(forHTTPHeaderField: "X-Token"), "secret")
        XCTAssertNil(request.value(forHTTPHeaderField: "Host"), "the connection's fields stay with the connection")
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), ["https://api.example.com/user"])
        XCTAssertEqual(mocks.requests(matching: .url("https://api.example.com/user")).count, 1)
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAnAsyncHandlerGetsTheMethodAndTheBody() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/echo", method: "POST") { request async throws -> MockResponse in
            await Task.yield()
            let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) } ?? ""
            return .text("\(request.httpMethod ?? "?") \(body)", status: 201)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            request.httpBody = Data("hello".utf8)
            let (response, body) = try await fetch(request)
            XCTAssertEqual(response.statusCode, 201)
            XCTAssertEqual(body, "POST hello")
        }
        XCTAssertEqual(mocks.requests.first.map { String(decoding: $0.body, as: UTF8.self) }, "hello")
    }

    func testATemplateGetsItsParametersAndTheQuery() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/users/{id}")) { request, parameters in
            .text("user \(parameters["id"] ?? "?") \(request.url?.query ?? "")")
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let (_, body) = try await fetch(server.url("/users/42?fields=name"))
            XCTAssertEqual(body, "user 42 fields=name")
        }
    }

    func testAMatchOnMethodHeaderAndJSONBodyPicksTheHandlerAsTheSessionDoes() async throws {
        let mocks = MockRegistry()
        let match = RequestMatch.url("https://api.example.com/items?v=2").method("PUT").header("X-Token", "a")
            .jsonBody(#"{"n": 1}"#)
        mocks.register(match) { _ in .text("matched") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            for token in ["a", "b"] {
                var served = URLRequest(url: server.url("/items?v=2"))
                served.httpMethod = "PUT"
                served.setValue(token, forHTTPHeaderField: "X-Token")
                served.httpBody = Data(#"{"n":1}"#.utf8)
                var inProcess = served
                inProcess.url = URL(string: "https://api.example.com/items?v=2")
                let (response, overHTTP) = try await fetch(served)
                let inProcessAnswer = try? await mocks.session.data(for: inProcess)
                if token == "a" {
                    XCTAssertEqual(overHTTP, "matched")
                    XCTAssertEqual(inProcessAnswer.map { String(decoding: $0.0, as: UTF8.self) }, "matched")
                } else {
                    XCTAssertEqual(response.statusCode, 404, "another token matches nothing")
                    XCTAssertNil(inProcessAnswer, "nor through the session")
                }
            }
        }
        XCTAssertEqual(mocks.takeFailures().count, 2, "one unmatched request through each door")
    }

    func testASequenceAnswersInOrderThenFailsWithItsReport() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/count", sequence: [.text("one"), .text("two", status: 202)])
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let first = try await fetch(server.url("/count"))
            let second = try await fetch(server.url("/count"))
            XCTAssertEqual(first.1, "one")
            XCTAssertEqual([second.0.statusCode], [202])
            XCTAssertEqual(second.1, "two")
            let third = try await fetch(server.url("/count"))
            XCTAssertEqual(third.0.statusCode, 500, "a sequence run out is MockNetwork's error")
            XCTAssertTrue(third.1.contains("count"), third.1)
        }
        XCTAssertEqual(mocks.takeFailures().count, 1, "the exhausted sequence is the test's failure")
    }

    func testAnUnmatchedRequestGets404WithTheReportAndIsTheRegistrysFailure() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/users") { _ in .status(204) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let (response, body) = try await fetch(server.url("/user"))
            XCTAssertEqual(response.statusCode, 404)
            XCTAssertTrue(body.hasPrefix("MockNetwork: no handler for GET https://api.example.com/user"), body)
            XCTAssertTrue(body.contains("https://api.example.com/users"), "the nearest match: \(body)")
        }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.message.hasPrefix("MockNetwork: no handler for GET") == true)
        XCTAssertEqual(mocks.requests.count, 1, "logged as the session's are")
    }

    func testTheHostFieldPicksOneOfTheOrigins() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/who") { _ in .text("api") }
        mocks.register("http://cdn.example.com:8080/who") { _ in .text("cdn") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com", "http://CDN.example.com:8080/"])
        defer { server.stop() }
        XCTAssertEqual(
            server.origins.map(\.absoluteString), ["https://api.example.com", "http://cdn.example.com:8080"])
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /who HTTP/1.1\r\nHost: cdn.example.com:8080\r\n\r\n")
                XCTAssertEqual(String(decoding: try client.readResponse().body, as: UTF8.self), "cdn")
                client.send("GET /who HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                XCTAssertEqual(String(decoding: try client.readResponse().body, as: UTF8.self), "api")
                client.send("GET /who HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
                XCTAssertEqual(
                    String(decoding: try client.readResponse().body, as: UTF8.self), "api", "else the first origin")
            }
        }
    }

    func testWithNoOriginARequestIsOnTheServersOwnURL() async throws {
        let mocks = MockRegistry()
        let server = try MockServer(serving: mocks)
        defer { server.stop() }
        XCTAssertEqual(server.url.absoluteString, "http://127.0.0.1:\(server.port)")
        mocks.register(.url(server.url("/own").absoluteString)) { _ in .text("own") }
        try await withWatchdog(20) {
            let (_, body) = try await fetch(server.url("/own"))
            XCTAssertEqual(body, "own")
        }
        XCTAssertEqual(mocks.requests.first?.url, server.url("/own"))
    }

    func testARawClientSeesHEADRedirectsAndAThrownErrorAsAServerGivesThem() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/page") { _ in .text("hello") }
        mocks.register("https://api.example.com/old") { _ in .redirect(to: "https://api.example.com/page") }
        mocks.register("https://api.example.com/offline") { _ in throw URLError(.notConnectedToInternet) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("HEAD /page HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                let head = try client.readResponse(method: "HEAD")
                XCTAssertEqual(head.status, 200)
                XCTAssertEqual(head.headers["Content-Length"], "5", "the length of the body it leaves out")
                XCTAssertEqual(head.body, [])
                client.send("GET /old HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                let redirect = try client.readResponse()
                XCTAssertEqual(redirect.status, 302, "the client follows redirects itself")
                XCTAssertEqual(
                    redirect.headers["Location"], "http://127.0.0.1:\(server.port)/page", "back to the server")
                client.send("GET /offline HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                XCTAssertTrue(client.waitForClose(), "a thrown URLError closes the connection without an answer")
            }
        }
        XCTAssertEqual(mocks.requests.map(\.method), ["HEAD", "GET", "GET"])
    }

    /// Served as two origins, a redirect from the first to the second comes back to the second's
    /// handlers: the client follows it to the server's address (whose `Host` alone names the first),
    /// and the server remembers which origin that target meant. Before, it was answered as
    /// `api.example.com/img/1.png` (404).
    func testARedirectToTheSecondOriginComesBackToItsHandlers() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/avatar") { _ in .redirect(to: "https://cdn.example.com/img/1.png") }
        mocks.register("https://cdn.example.com/img/1.png") { _ in .text("png") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com", "https://cdn.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(from: server.url("/avatar"))
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 200)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "png")
        }
        XCTAssertEqual(
            mocks.requests.map(\.url.absoluteString),
            ["https://api.example.com/avatar", "https://cdn.example.com/img/1.png"])
        XCTAssertEqual(mocks.takeFailures(), [])
    }

    /// A redirect to an origin the server answers as comes back to the server, so a client that
    /// follows it reaches the same handlers, never the real service; other locations go out as they are.
    func testARedirectOnAServedOriginIsFollowedBackToTheServer() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/old") { _ in .redirect(to: "https://API.example.com/new?page=2") }
        mocks.register("https://api.example.com/new?page=2") { request in
            .text("new, page \(request.url?.query ?? "none")")
        }
        mocks.register("https://api.example.com/away") { _ in .redirect(to: "https://other.example.com/x") }
        mocks.register("https://api.example.com/near") { _ in .redirect(to: "/new") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let (data, response) = try await session.data(from: server.url("/old"))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "new, page page=2")
            XCTAssertEqual(response.url?.absoluteString, "http://127.0.0.1:\(server.port)/new?page=2")
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /away HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                XCTAssertEqual(try client.readResponse().headers["Location"], "https://other.example.com/x")
                client.send("GET /near HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                XCTAssertEqual(try client.readResponse().headers["Location"], "/new")
            }
        }
        XCTAssertEqual(
            mocks.requests.map(\.url.absoluteString),
            [
                "https://api.example.com/old", "https://api.example.com/new?page=2", "https://api.example.com/away",
                "https://api.example.com/near",
            ])
    }

    /// Linux's URLSession sends a body stream with `Transfer-Encoding: chunked` and the
    /// `Content-Length` its client set: the chunks are the body, and the connection closes after
    /// the answer, so bytes after them are never answered as a request of their own.
    func testARequestFramedBothWaysIsReadByItsChunksAndNothingAfterItIsAnswered() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/upload", method: "POST") { request in
            .text("got " + String(decoding: request.httpBody ?? Data(), as: UTF8.self))
        }
        mocks.register("https://api.example.com/smuggled") { _ in .text("smuggled") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send(
                    "POST /upload HTTP/1.1\r\nHost: api.example.com\r\nContent-Length: 5\r\n"
                        + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                        + "GET /smuggled HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 200)
                XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "got hello")
                XCTAssertEqual(response.headers["Connection"], "close")
                XCTAssertThrowsError(try client.readResponse(), "a second answer came: the smuggled request")
            }
        }
        XCTAssertEqual(mocks.requests.map(\.url.path), ["/upload"])
    }

    func testChecksAfterTheFactCountTheServedRequests() async throws {
        let mocks = MockRegistry()
        let orders = RequestMatch.url("https://api.example.com/orders").method("POST")
        mocks.register(orders) { _ in .status(201) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            for quantity in [1, 2] {
                var request = URLRequest(url: server.url("/orders"))
                request.httpMethod = "POST"
                request.httpBody = Data(#"{"quantity":\#(quantity)}"#.utf8)
                let (response, _) = try await fetch(request)
                XCTAssertEqual(response.statusCode, 201)
            }
        }
        let bodies = mocks.requests(matching: orders).map { String(decoding: $0.body, as: UTF8.self) }
        XCTAssertEqual(bodies, [#"{"quantity":1}"#, #"{"quantity":2}"#])
        mocks.expect(orders, count: .exactly(2))
        mocks.expect(.host("tracker.example.com"), count: .never)
        let miscount = try XCTUnwrap(mocks.countFailure(orders, .exactly(3)))
        XCTAssertTrue(miscount.contains("exactly 3 requests"), miscount)
        XCTAssertTrue(miscount.contains("https://api.example.com/orders"), miscount)
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAnOriginWithAPathIsRefused() {
        XCTAssertThrowsError(try MockServer(serving: MockRegistry(), as: ["https://api.example.com/v1"])) { error in
            XCTAssertTrue("\(error)".contains("is not an origin"), "\(error)")
        }
        XCTAssertThrowsError(try MockServer(serving: MockRegistry(), as: ["api.example.com"]))
    }
}
