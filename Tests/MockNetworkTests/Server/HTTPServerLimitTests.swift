import Foundation
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Each limit, reached: the head's size (431, 414), the body's (413, before or while it arrives),
/// the number of connections (503), and time without progress (closed, or 408 mid-request).
final class HTTPServerLimitTests: XCTestCase {
    func testAHeadPastTheDefaultLimitGets431AndTheConnectionCloses() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        XCTAssertEqual(server.limits.maxHeaderBytes, 64 * 1024)
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                let field = "X-Big: \(String(repeating: "b", count: 65 * 1024))\r\n"
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\(field)\r\n")
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 431)
                XCTAssertEqual(response.reason, "Request Header Fields Too Large")
                XCTAssertEqual(response.headers["Connection"], "close")
                XCTAssertTrue(client.waitForClose())

                let longLine = try RawHTTPClient(port: server.port)
                longLine.send("GET /\(String(repeating: "p", count: 65 * 1024)) HTTP/1.1\r\n")
                XCTAssertEqual(try longLine.readResponse().status, 414)
                XCTAssertTrue(longLine.waitForClose())
            }
            await server.waitUntilNoConnections()
        }
    }

    func testABodyPastTheLimitGets413BeforeItIsRead() async throws {
        let server = try HTTPServer(limits: HTTPServerLimits(maxBodyBytes: 1024), responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                // Announced: refused on the head, without 100 Continue, so the client sends nothing more.
                let announced = try RawHTTPClient(port: server.port)
                announced.send("PUT / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1025\r\n\r\n")
                XCTAssertEqual(try announced.readHead().status, 413)
                XCTAssertTrue(announced.waitForClose())
                // Chunked: refused as soon as the chunks pass the limit.
                let chunked = try RawHTTPClient(port: server.port)
                chunked.send("PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunked.send("400\r\n\(String(repeating: "z", count: 1024))\r\n1\r\nz\r\n")
                XCTAssertEqual(try chunked.readResponse().status, 413)
                XCTAssertTrue(chunked.waitForClose())
                // At the limit, fine.
                let fits = try RawHTTPClient(port: server.port)
                fits.send(
                    "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 1024\r\n\r\n\(String(repeating: "f", count: 1024))")
                XCTAssertEqual(try fits.readResponse().body.count, 1024)
            }
            // A client that sends the whole body anyway still reads the 413: the server drops the
            // rest before it closes, so no reset destroys the answer.
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            request.httpBody = Data(count: 4 << 20)
            let (_, response) = try await plainSession().data(for: request)
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 413)
            await server.waitUntilNoConnections()
        }
    }

    func testConnectionsPastTheLimitGet503UntilOneCloses() async throws {
        let server = try HTTPServer(limits: HTTPServerLimits(maxConnections: 4), responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let admitted = try (0..<4).map { _ in try RawHTTPClient(port: server.port) }
                for client in admitted {
                    client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                    XCTAssertEqual(try client.readResponse().status, 200)
                }
                XCTAssertEqual(server.connectionCount, 4)
                let refused = try RawHTTPClient(port: server.port)
                XCTAssertEqual(try refused.readResponse().status, 503)
                XCTAssertTrue(refused.waitForClose())
                for client in admitted { client.close() }
            }
            await server.waitUntilNoConnections()
            try await offThread {
                let later = try RawHTTPClient(port: server.port)
                later.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try later.readResponse().status, 200)
            }
        }
    }

    func testAnIdleConnectionIsClosedAndAHalfRequestGets408() async throws {
        let idle: TimeInterval = 0.3
        let server = try HTTPServer(limits: HTTPServerLimits(idleTimeout: idle), responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let start = Date()
                let kept = try RawHTTPClient(port: server.port)
                kept.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try kept.readResponse().status, 200)
                XCTAssertTrue(kept.waitForClose(), "closed after the idle time, not kept forever")
                XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), idle * 0.9)

                let half = try RawHTTPClient(port: server.port)
                half.send("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc")
                let response = try half.readResponse()
                XCTAssertEqual(response.status, 408)
                XCTAssertEqual(response.headers["Connection"], "close")
                XCTAssertTrue(half.waitForClose())

                let silent = try RawHTTPClient(port: server.port)
                XCTAssertTrue(silent.waitForClose(), "a connection that never sends is closed too")
            }
            await server.waitUntilNoConnections()
        }
    }

    func testAClientThatDoesNotReadIsClosedAndItsAnswersAreNotPiledUp() async throws {
        let idle: TimeInterval = 0.3
        let big = Data(count: 256 * 1024)
        let answered = Shared(0)
        let server = try HTTPServer(limits: HTTPServerLimits(idleTimeout: idle)) { _, writer in
            answered.update { $0 += 1 }
            writer.respond(status: 200, body: big)
        }
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port, timeout: 2)
        try await withWatchdog(20) {
            try await offThread {
                // One answer read, so the server has taken the connection.
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try client.readResponse().body.count, big.count)
                // Then ten thousand requests, and not one answer read: the server stops reading them
                // once its answers wait, so this send may time out.
                client.send(String(repeating: "GET / HTTP/1.1\r\nHost: a\r\n\r\n", count: 10_000))
            }
            // The idle timeout closes the connection of a client that takes nothing.
            await server.waitUntilNoConnections()
        }
        client.close()
        // Answers are made only while the client takes them: a few, not ten thousand.
        XCTAssertLessThan(answered.current, 100, "the server answered ahead of a client that reads nothing")
    }

    func testAClientThatEndsItsSideStillGetsAnImmediateAnswer() async throws {
        let server = try HTTPServer(responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\n\r\n")
                client.finishSending()
                XCTAssertEqual(try client.readResponse().headers["X-Target"], "/a")
                XCTAssertEqual(try client.readResponse().headers["X-Target"], "/b")
                XCTAssertTrue(client.waitForClose())
            }
            await server.waitUntilNoConnections()
        }
    }
}
