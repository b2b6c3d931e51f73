import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkArchives
#endif

/// A served request the registry lets through to the network goes there, as one on its session
/// would: the client gets what the network answered, and an archive that records keeps it. The
/// "network" is a loopback server on 127.0.0.1, which the served registry answers as.
final class MockServerNetworkTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "MockServerNetworkTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func network() throws -> LoopbackServer {
        try LoopbackServer(
            routes: [
                "GET /users/1": .init(
                    status: 200, headers: [("Content-Type", "application/json"), ("X-Served-By", "loopback")],
                    text: #"{"id":1}"#),
                "POST /users": .init(status: 201, headers: [("Content-Type", "text/plain")], text: "created"),
            ], maxRequests: 8, lifetime: 20)
    }

    /// `scheme://host:port` of a loopback server: the origin the served registry answers as.
    private func origin(of server: LoopbackServer) throws -> String {
        let url = try XCTUnwrap(server.url("/"))
        return "http://127.0.0.1:\(try XCTUnwrap(url.port))"
    }

    func testAnUnmatchedRequestPassedToTheNetworkGetsTheNetworksAnswer() async throws {
        let upstream = try network()
        defer { upstream.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))
        mocks.register(.url(try origin(of: upstream) + "/users/2")) { _ in .text("mocked") }
        let server = try MockServer(serving: mocks, as: [try origin(of: upstream)])
        defer { server.stop() }
        try await withWatchdog(20) {
            let (passed, body) = try await fetchText(URLRequest(url: server.url("/users/1")))
            XCTAssertEqual(passed.statusCode, 200)
            XCTAssertEqual(body, #"{"id":1}"#)
            XCTAssertEqual(passed.value(forHTTPHeaderField: "X-Served-By"), "loopback")
            var post = URLRequest(url: server.url("/users"))
            post.httpMethod = "POST"
            post.httpBody = Data("name=Ada".utf8)
            let (created, text) = try await fetchText(post)
            XCTAssertEqual(created.statusCode, 201)
            XCTAssertEqual(text, "created")
            let (_, mocked) = try await fetchText(URLRequest(url: server.url("/users/2")))
            XCTAssertEqual(mocked, "mocked", "a handler still answers what it matches")
        }
        XCTAssertEqual(upstream.received.map(\.method), ["GET", "POST"])
        XCTAssertEqual(upstream.received.map(\.target), ["/users/1", "/users"])
        XCTAssertEqual(upstream.received.last?.body, Data("name=Ada".utf8))
        XCTAssertEqual(mocks.requests.map(\.url.path), ["/users/1", "/users", "/users/2"])
        XCTAssertEqual(mocks.failures, [])
    }

    func testAnArchiveRecordsServedRequestsThenReplaysThemWithoutTheNetwork() async throws {
        let upstream = try network()
        defer { upstream.stop() }
        let file = folder.appendingPathComponent("Archives/served.har")
        let origin = try origin(of: upstream)

        let recording = MockRegistry()
        try recording.useArchive(at: file, mode: .once)
        let recorder = try MockServer(serving: recording, as: [origin])
        try await withWatchdog(20) {
            let (response, body) = try await fetchText(URLRequest(url: recorder.url("/users/1")))
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(body, #"{"id":1}"#)
        }
        recorder.stop()
        XCTAssertEqual(recording.failures, [])
        recording.reset()
        XCTAssertEqual(upstream.received.count, 1)
        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.url), [origin + "/users/1"])
        XCTAssertEqual(archive.entries.map(\.response.status), [200])

        let replaying = MockRegistry()
        try replaying.useArchive(at: file, mode: .once)
        let replayer = try MockServer(serving: replaying, as: [origin])
        defer { replayer.stop() }
        try await withWatchdog(20) {
            let (response, body) = try await fetchText(URLRequest(url: replayer.url("/users/1")))
            XCTAssertEqual(response.statusCode, 200)
            XCTAssertEqual(body, #"{"id":1}"#)
            XCTAssertEqual(response.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        }
        XCTAssertEqual(upstream.received.count, 1, "the replay did not reach the network")
        XCTAssertEqual(replaying.failures, [])
    }

    func testAHeadKeepsItsLengthAndAnEncodedBodyGoesOnDecoded() async throws {
        // "hello, decoded", gzipped: URLSession decodes it, so the served answer says no encoding.
        let gzipped: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 255, 203, 72, 205, 201, 201, 215, 81, 72, 73, 77, 206, 79, 73, 77, 1, 0,
            119, 173, 182, 48, 14, 0, 0, 0,
        ]
        let upstream = try LoopbackServer(
            routes: [
                "HEAD /file": .init(status: 200, headers: [("Content-Type", "text/plain")], text: "twelve bytes"),
                "GET /zipped": .init(
                    status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
                    body: Data(gzipped)),
            ], maxRequests: 4, lifetime: 20)
        defer { upstream.stop() }
        let origin = try origin(of: upstream)
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))
        let server = try MockServer(serving: mocks, as: [origin])
        defer { server.stop() }
        try await withWatchdog(20) {
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            XCTAssertTrue(client.send("HEAD /file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let head = try await offThread { try client.readResponse(method: "HEAD") }
            XCTAssertEqual(head.status, 200)
            XCTAssertEqual(head.headers["Content-Length"], "12", "the length of the body HEAD leaves out")
            XCTAssertEqual(head.body, [])
            XCTAssertTrue(client.send("GET /zipped HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let zipped = try await offThread { try client.readResponse() }
            XCTAssertEqual(zipped.status, 200)
            XCTAssertEqual(String(decoding: zipped.body, as: UTF8.self), "hello, decoded")
            XCTAssertNil(zipped.headers["Content-Encoding"], "the body goes on as URLSession decoded it")
            XCTAssertEqual(zipped.headers["Content-Length"], "14")
        }
        XCTAssertEqual(upstream.received.map(\.method), ["HEAD", "GET"])
    }

    func testAClientThatLeavesCancelsTheRequestItPassedToTheNetwork() async throws {
        // The network answers after a while; the client leaves first, and the registry no longer
        // counts the request in flight.
        let upstream = try LoopbackServer(
            routes: ["GET /slow": .init(status: 200, text: "late", delay: 5)], maxRequests: 2, lifetime: 20)
        defer { upstream.stop() }
        let mocks = MockRegistry(unmatched: .passToNetwork(hosts: ["127.0.0.1"]))
        let origin = try origin(of: upstream)
        let server = try MockServer(serving: mocks, as: [origin])
        defer { server.stop() }
        try await withWatchdog(20) {
            let client = try RawHTTPClient(port: server.port)
            XCTAssertTrue(client.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            _ = try await mocks.nextRequest(matching: .url(origin + "/slow"), timeout: 10)
            XCTAssertEqual(mocks.endOfTestFailures().count, 1, "in flight while the network has not answered")
            client.close()
            for _ in 0..<2000 where !mocks.endOfTestFailures().isEmpty { await Task.yield() }
            XCTAssertEqual(mocks.endOfTestFailures(), [], "ended when its client left")
        }
    }
}
