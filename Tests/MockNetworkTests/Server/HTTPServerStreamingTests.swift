import Foundation
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Answers over time: chunks that reach the client one at a time as the responder writes them (each
/// written only after the client saw the one before, so order proves it, no clock), an announced
/// length, HTTP/1.0, a failed answer, and a client that leaves mid-answer.
final class HTTPServerStreamingTests: XCTestCase {
    /// A server whose every answer is begun and handed to the test.
    private func streamingServer(
        status: Int = 200, length: Int? = nil
    ) throws -> (HTTPServer, Shared<[HTTPResponseWriter]>) {
        let writers = Shared<[HTTPResponseWriter]>([])
        let server = try HTTPServer { _, writer in
            writer.begin(status: status, headers: ["Content-Type": "text/plain"], length: length)
            writers.update { $0.append(writer) }
        }
        return (server, writers)
    }

    func testChunksReachARawClientOneAtATime() async throws {
        let (server, writers) = try streamingServer()
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /stream HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readHead()
                XCTAssertEqual(head.status, 200)
                XCTAssertEqual(head.headers["Transfer-Encoding"], "chunked")
                XCTAssertNil(head.headers["Content-Length"])
                let writer = try XCTUnwrap(writers.current.first)
                for piece in ["one", "two", "three"] {
                    writer.write(Data(piece.utf8))
                    XCTAssertEqual(try client.readChunk().map { String(decoding: $0, as: UTF8.self) }, piece)
                }
                writer.end()
                XCTAssertNil(try client.readChunk(), "the last chunk")
                // The connection stays open for the next request.
                client.send("GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try client.readHead().status, 200)
                XCTAssertEqual(writers.current.count, 2)
                writers.current[1].end()
                XCTAssertNil(try client.readChunk())
            }
        }
    }

    func testURLSessionDelegateGetsEachPieceBeforeTheNextIsWritten() async throws {
        let (server, writers) = try streamingServer()
        defer { server.stop() }
        let recorder = EventRecorder()
        recorder.whenData {
            // Each piece is written only once the one before has reached the client.
            let seen = recorder.chunks.count
            let writer = writers.current.first
            if seen < 3 { writer?.write(Data("piece \(seen)\n".utf8)) } else { writer?.end() }
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let done = recorder.completion(self)
        let streamStarted = expectation(description: "the answer began")
        let task = session.dataTask(with: server.url("/events"))
        task.resume()
        try await withWatchdog(20) {
            while writers.current.isEmpty { await Task.yield() }
            writers.current[0].write(Data("piece 0\n".utf8))
            streamStarted.fulfill()
        }
        await fulfillment(of: [streamStarted, done], timeout: 20)
        XCTAssertEqual(
            recorder.events.current,
            [
                .response(200), .data(Data("piece 0\n".utf8)), .data(Data("piece 1\n".utf8)),
                .data(Data("piece 2\n".utf8)), .complete(nil),
            ])
    }

    func testAnAnnouncedLengthIsSentAsContentLength() async throws {
        let (server, writers) = try streamingServer(length: 6)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readHead()
                XCTAssertEqual(head.headers["Content-Length"], "6")
                XCTAssertNil(head.headers["Transfer-Encoding"])
                let writer = try XCTUnwrap(writers.current.first)
                writer.write(Data("abc".utf8))
                XCTAssertEqual(try client.readExactly(3), Array("abc".utf8))
                writer.write(Data("defXYZ".utf8))  // past the length: dropped
                writer.end()
                XCTAssertEqual(try client.readExactly(3), Array("def".utf8))
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                XCTAssertEqual(try client.readHead().status, 200, "the next answer starts right after")
            }
        }
    }

    func testAnHTTP10ClientGetsTheBodyUntilTheConnectionEnds() async throws {
        let (server, writers) = try streamingServer()
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                let head = try client.readHead()
                XCTAssertNil(head.headers["Transfer-Encoding"])
                XCTAssertEqual(head.headers["Connection"], "close")
                let writer = try XCTUnwrap(writers.current.first)
                writer.write(Data("one".utf8))
                XCTAssertEqual(try client.readExactly(3), Array("one".utf8))
                writer.write(Data("two".utf8))
                writer.end()
                XCTAssertEqual(try client.readExactly(3), Array("two".utf8))
                XCTAssertTrue(client.waitForClose())
            }
        }
    }

    func testAbortCutsTheBodyShortAndEndLeavesNothingOpen() async throws {
        let (server, writers) = try streamingServer()
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = try client.readHead()
                let writer = try XCTUnwrap(writers.current.first)
                writer.write(Data("partial".utf8))
                writer.abort()
                writer.write(Data("ignored".utf8))
                writer.end()
                XCTAssertEqual(try client.readChunk(), Array("partial".utf8))
                XCTAssertThrowsError(try client.readChunk(), "no last chunk: the connection ended")
            }
            await server.waitUntilNoConnections()
        }
        // URLSession sees the failure as an error.
        let (failing, failingWriters) = try streamingServer()
        defer { failing.stop() }
        try await withWatchdog(20) {
            let task = Task { try await plainSession().data(from: failing.url("/")) }
            while failingWriters.current.isEmpty { await Task.yield() }
            failingWriters.current[0].write(Data("partial".utf8))
            failingWriters.current[0].abort()
            let result = await task.result
            XCTAssertThrowsError(try result.get())
        }
    }

    func testTheResponderHearsWhenTheClientLeavesMidAnswer() async throws {
        let (server, writers) = try streamingServer()
        defer { server.stop() }
        let left = expectation(description: "onClose ran")
        let client = try RawHTTPClient(port: server.port)
        try await withWatchdog(20) {
            try await offThread {
                client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = try client.readHead()
            }
        }
        let writer = try XCTUnwrap(writers.current.first)
        writer.onClose { left.fulfill() }
        client.close()
        await fulfillment(of: [left], timeout: 10)
        try await withWatchdog(20) { await server.waitUntilNoConnections() }
        // After the close, a new handler runs at once.
        let again = expectation(description: "onClose after the close")
        writer.onClose { again.fulfill() }
        await fulfillment(of: [again], timeout: 10)
    }

    func testBodilessAnswersSendNoBody() async throws {
        let server = try HTTPServer { request, writer in
            switch request.target {
            case "/204": writer.respond(status: 204, body: Data("dropped".utf8))
            case "/304": writer.respond(status: 304, body: Data("dropped".utf8))
            case "/head-stream":
                writer.begin(status: 200)
                writer.write(Data("dropped".utf8))
                writer.end()
            default: writer.respond(status: 99, body: Data("bad status".utf8))
            }
        }
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                client.send("GET /204 HTTP/1.1\r\nHost: a\r\n\r\nGET /304 HTTP/1.1\r\nHost: a\r\n\r\n")
                let noContent = try client.readResponse()
                XCTAssertEqual(noContent.status, 204)
                XCTAssertNil(noContent.headers["Content-Length"])
                XCTAssertEqual(try client.readResponse().status, 304)
                client.send("HEAD /head-stream HTTP/1.1\r\nHost: a\r\n\r\nGET /bad HTTP/1.1\r\nHost: a\r\n\r\n")
                let head = try client.readResponse(method: "HEAD")
                XCTAssertEqual(head.headers["Transfer-Encoding"], "chunked")
                let bad = try client.readResponse()
                XCTAssertEqual(bad.status, 500, "a status no server may send becomes 500")
                XCTAssertEqual(bad.reason, "Internal Server Error")
            }
        }
    }
}
