import Foundation
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The server's HTTP/1.1 against a real URLSession (no protocol classes) and a bare socket:
/// keep-alive, pipelining, request bodies in both framings, HEAD, 100-continue, HTTP/1.0, stopping.
final class HTTPServerTests: XCTestCase {
    func testURLSessionGetsAnAnswerOverLoopback() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        try await withWatchdog(20) {
            var request = URLRequest(url: server.url("/users/1?page=2"))
            request.setValue("yes", forHTTPHeaderField: "X-Probe")
            let (data, response) = try await plainSession().data(for: request)
            let http = try XCTUnwrap(response as? HTTPURLResponse)
            XCTAssertEqual(http.statusCode, 200)
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Method"), "GET")
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Target"), "/users/1?page=2")
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Echo-Probe"), "yes")
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Peer")?.hasPrefix("127.0.0.1:"), true)
            XCTAssertEqual(data, Data())
        }
    }

    func testURLSessionPostsABodyAndKeepsTheConnectionForTheNextRequest() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = plainSession()
            var peers: [String] = []
            for index in 0..<3 {
                var request = URLRequest(url: server.url("/items"))
                request.httpMethod = "POST"
                request.httpBody = Data("item \(index)".utf8)
                let (data, response) = try await session.data(for: request)
                XCTAssertEqual(String(decoding: data, as: UTF8.self), "item \(index)")
                peers.append(try XCTUnwrap((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Peer")))
            }
            XCTAssertEqual(Set(peers).count, 1, "one connection for three requests: \(peers)")
        }
    }

    func testTwoRequestsOnOneConnection() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /first HTTP/1.1\r\nHost: a\r\n\r\n")
                let first = try client.readResponse()
                client.send("POST /second HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello")
                let second = try client.readResponse()
                XCTAssertEqual(first.headers["X-Target"], "/first")
                XCTAssertEqual(second.headers["X-Target"], "/second")
                XCTAssertEqual(second.text, "hello")
                XCTAssertEqual(first.headers["X-Peer"], "127.0.0.1:\(client.localPort)")
                XCTAssertEqual(second.headers["X-Peer"], first.headers["X-Peer"])
                XCTAssertEqual(server.connectionCount, 1)
            }
        }
    }
}

extension HTTPServerTests {
    func testPipelinedRequestsAreAnsweredInOrderWhenTheFirstAnswersLast() async throws {
        let held = Shared<HTTPResponseWriter?>(nil)
        let calls = Shared<[String]>([])
        let heldArrived = expectation(description: "the first request reached the responder")
        let server = try HTTPServer { request, writer in
            calls.update { $0.append(request.target) }
            if request.target == "/slow" {
                held.update { $0 = writer }
                heldArrived.fulfill()
            } else {
                writer.respond(status: 200, body: Data(request.target.utf8))
            }
        }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        let requests = ["/slow", "/fast1", "/fast2"].map { "GET \($0) HTTP/1.1\r\nHost: a\r\n\r\n" }
        client.send(requests.joined())
        await fulfillment(of: [heldArrived], timeout: 10)
        XCTAssertEqual(calls.current, ["/slow"], "the next request waits for the answer before it")
        // Answered from another thread, after the later requests arrived.
        DispatchQueue.global().async { held.current?.respond(status: 201, body: Data("slow".utf8)) }
        try await withWatchdog(20) {
            try await offThread {
                XCTAssertEqual(try client.readResponse().text, "slow")
                XCTAssertEqual(try client.readResponse().text, "/fast1")
                XCTAssertEqual(try client.readResponse().text, "/fast2")
            }
        }
        XCTAssertEqual(calls.current, ["/slow", "/fast1", "/fast2"])
    }

    func testHeadSendsTheLengthAndNoBody() async throws {
        let server = try HTTPServer { _, writer in
            writer.respond(status: 200, headers: ["Content-Type": "text/plain"], body: Data("hello".utf8))
        }
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("HEAD /x HTTP/1.1\r\nHost: a\r\n\r\nGET /x HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readResponse(method: "HEAD")
                XCTAssertEqual(head.headers["Content-Length"], "5")
                XCTAssertEqual(head.body, [])
                // Had the body been sent, the next answer would start inside it.
                let get = try client.readResponse()
                XCTAssertEqual(get.text, "hello")
            }
            var request = URLRequest(url: server.url("/x"))
            request.httpMethod = "HEAD"
            let (data, response) = try await plainSession().data(for: request)
            XCTAssertEqual(data, Data())
            XCTAssertEqual(response.expectedContentLength, 5)
        }
    }

    func testChunkedRequestBodyArrivesWhole() async throws {
        let server = try HTTPServer { request, writer in
            let framing = request.headers["Transfer-Encoding"] ?? "length"
            writer.respond(status: 200, headers: ["X-Framing": framing], body: request.body)
        }
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("PUT /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nwi")
                client.send("ki\r\n5;ext=1\r\npedia\r\n")
                client.send("0\r\nX-Checksum: 1\r\n\r\n")
                XCTAssertEqual(try client.readResponse().text, "wikipedia")
            }
            // URLSession sends a body stream of unknown length chunked.
            var request = URLRequest(url: server.url("/stream"))
            request.httpMethod = "POST"
            let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            request.httpBodyStream = InputStream(data: body)
            let (data, response) = try await plainSession().data(for: request)
            XCTAssertEqual(data, body)
            let framing = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Framing")
            XCTAssertEqual(framing, "chunked")
        }
    }

    func testExpectContinueIsAnsweredBeforeTheBodyIsSent() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("POST /up HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                // The client sent no body yet: the interim answer must come first.
                XCTAssertEqual(try client.readHead().status, 100)
                client.send("hello")
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 200)
                XCTAssertEqual(response.text, "hello")
            }
        }
    }

    func testExpectContinueWaitsForTheAnswersBeforeIt() async throws {
        let held = Shared<HTTPResponseWriter?>(nil)
        let heldArrived = expectation(description: "the first request reached the responder")
        let server = try HTTPServer { request, writer in
            guard request.target == "/first" else { return echo.respond(to: request, writer: writer) }
            held.update { $0 = writer }
            heldArrived.fulfill()
        }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        client.send(
            "GET /first HTTP/1.1\r\nHost: a\r\n\r\n"
                + "POST /second HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        await fulfillment(of: [heldArrived], timeout: 10)
        held.current?.respond(status: 200, body: Data("first".utf8))
        try await withWatchdog(20) {
            try await offThread {
                // The first answer, whole, and only then the interim one for the second request.
                XCTAssertEqual(try client.readResponse().text, "first")
                XCTAssertEqual(try client.readHead().status, 100)
                client.send("ok")
                XCTAssertEqual(try client.readResponse().text, "ok")
            }
        }
    }

    func testHTTP10ClosesAfterTheAnswerUnlessAskedToKeepAlive() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let kept = try RawHTTPClient(port: server.port)
                kept.send("GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                XCTAssertEqual(try kept.readResponse().headers["Connection"], "keep-alive")
                kept.send("GET /b HTTP/1.0\r\n\r\n")
                let last = try kept.readResponse()
                XCTAssertEqual(last.headers["X-Target"], "/b")
                XCTAssertEqual(last.headers["Connection"], "close")
                XCTAssertTrue(kept.waitForClose())

                let closing = try RawHTTPClient(port: server.port)
                closing.send("GET /c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                XCTAssertEqual(try closing.readResponse().headers["Connection"], "close")
                XCTAssertTrue(closing.waitForClose())
            }
            await server.waitUntilNoConnections()
        }
    }

    func testStopClosesTheListenerAndEveryConnectionAndIsSafeTwice() async throws {
        var server: HTTPServer? = try HTTPServer(responder: echo)
        let port = try XCTUnwrap(server?.port)
        try await withWatchdog(20) { [server] in
            try await offThread {
                let client = try RawHTTPClient(port: port)
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = try client.readResponse()
                server?.stop()
                server?.stop()
                XCTAssertTrue(client.waitForClose(), "an open connection ends with the server")
                XCTAssertThrowsError(try RawHTTPClient(port: port), "the port is closed when stop returns")
            }
            await server?.waitUntilNoConnections()
            XCTAssertEqual(server?.connectionCount, 0)
        }
        // Released without stop: deinit stops it.
        server = try HTTPServer(responder: echo)
        let second = try XCTUnwrap(server?.port)
        server = nil
        XCTAssertThrowsError(try RawHTTPClient(port: second))
    }
}
