import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `HEAD` is answered with the head its `GET` would get (RFC 9110, 9.3.2), and no body: a body over
/// time, whose length no one knows ahead, has no `Content-Length` for either (8.6 forbids one that
/// differs from the `GET`'s), as the registry's own session gives none.
final class MockServerHEADTests: XCTestCase {
    func testAHeadOfAStreamHasNoLengthAsItsGetHasNone() async throws {
        let mocks = MockRegistry()
        let events = [ServerSentEvent(id: "1", data: "one"), ServerSentEvent(id: "2", data: "two")]
        mocks.register("https://api.example.com/feed") { _ in .events(events, every: .milliseconds(10)) }
        mocks.register("https://api.example.com/export") { _ in
            .streamed(["a,b\n", "1,2\n"], every: .milliseconds(10))
        }
        mocks.register("https://api.example.com/slow") { _ in
            MockResponse.text("twelve bytes").throttled(bytesPerSecond: 240)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                defer { client.close() }
                for path in ["/feed", "/export"] {
                    // The HEAD, then the GET on the same connection: the HEAD left no body behind.
                    client.send("HEAD \(path) HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                    let head = try client.readResponse(method: "HEAD")
                    client.send("GET \(path) HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                    let get = try client.readResponse()
                    XCTAssertEqual(head.status, 200, path)
                    XCTAssertNil(head.headers["Content-Length"], "\(path): no length, as the GET has none")
                    XCTAssertNil(get.headers["Content-Length"], path)
                    XCTAssertEqual(head.headers["Transfer-Encoding"], get.headers["Transfer-Encoding"], path)
                    XCTAssertEqual(head.headers["Content-Type"], get.headers["Content-Type"], path)
                    XCTAssertEqual(head.body, [], path)
                    XCTAssertGreaterThan(get.body.count, 0, path)
                }
                // A throttled body's length is known: its HEAD says it, as its GET does.
                client.send("HEAD /slow HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                XCTAssertEqual(try client.readResponse(method: "HEAD").headers["Content-Length"], "12")
            }
            // The registry's own session gives a HEAD of a stream no length either.
            var request = URLRequest(url: URL(string: "https://api.example.com/feed")!)
            request.httpMethod = "HEAD"
            let (_, response) = try await mocks.session.data(for: request)
            XCTAssertNil((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length"))
        }
        XCTAssertEqual(mocks.takeFailures(), [])
    }
}
