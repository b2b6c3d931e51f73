import Foundation
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a client that sends `bytes` (and then, with `endsItsSide`, shuts its side) gets: the
/// status of the answer, and whether the server closed the connection after it.
private func answer(to bytes: String, endsItsSide: Bool, port: Int) throws -> (status: Int, closed: Bool) {
    let client = try RawHTTPClient(port: port)
    defer { client.close() }
    XCTAssertTrue(client.send(bytes))
    if endsItsSide { client.finishSending() }
    let response = try client.readResponse()
    XCTAssertEqual(response.headers["Connection"], "close", bytes.debugDescription)
    return (response.status, client.waitForClose())
}

/// A malformed or truncated request gets `400 Bad Request` on its socket and the connection is
/// closed after it; no responder sees it, and the server goes on answering other clients.
final class HTTPServerMalformedTests: XCTestCase {
    func testMalformedAndTruncatedRequestsGet400AndTheirConnectionsClose() async throws {
        let seen = Shared(0)
        let server = try HTTPServer(
            responder: ClosureResponder { request, writer in
                seen.update { $0 += 1 }
                writer.respond(status: 200, headers: [:], body: Data("ok".utf8))
            })
        defer { server.stop() }
        let malformed: [(String, Bool)] = [
            ("GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n", false),  // a request line of four words
            ("GET / HTTP/1.1\r\nHost: a\r\nno colon here\r\n\r\n", false),  // a field without a name
            ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: ten\r\n\r\n", false),  // a length that is no number
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", false),
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false),  // a bad chunk size
            ("GET / HTTP/1.1\r\n\r\n", false),  // no Host
            ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabcde", true),  // a body cut short
            ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", true),  // a chunk cut short
            ("GET / HTTP/1.1\r\nHost: a\r\nX-Half: ", true),  // a head cut short
        ]
        try await withWatchdog(30) {
            try await offThread {
                for (bytes, endsItsSide) in malformed {
                    let (status, closed) = try answer(to: bytes, endsItsSide: endsItsSide, port: server.port)
                    XCTAssertEqual(status, 400, bytes.debugDescription)
                    XCTAssertTrue(closed, "closed after the 400: \(bytes.debugDescription)")
                }
                // A good request on a new connection is still answered.
                let good = try RawHTTPClient(port: server.port)
                defer { good.close() }
                XCTAssertTrue(good.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
                let response = try good.readResponse()
                XCTAssertEqual(response.status, 200)
                XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "ok")
            }
            await server.waitUntilNoConnections()
        }
        XCTAssertEqual(seen.current, 1, "only the good request reached the responder")
    }
}
