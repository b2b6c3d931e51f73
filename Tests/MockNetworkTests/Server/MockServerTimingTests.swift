import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private func seconds(since start: DispatchTime) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
}

/// A served registry's answers over time: a delay, server-sent events as chunks at their times, a
/// request held until the test releases it, `nextRequest`, and a server that stops.
final class MockServerTimingTests: XCTestCase {
    func testADelayPassesBeforeTheAnswer() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 0.3) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            let start = DispatchTime.now()
            let (data, _) = try await session.data(from: server.url("/slow"))
            XCTAssertGreaterThanOrEqual(seconds(since: start), 0.3)
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "late")
        }
    }

    func testServerSentEventsArriveAsChunksInOrderAtTheirTimes() async throws {
        let mocks = MockRegistry()
        let events = (1...3).map { ServerSentEvent(id: "\($0)", data: "event \($0)") }
        mocks.register("https://api.example.com/feed") { _ in .events(events, every: .milliseconds(100)) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                let start = DispatchTime.now()
                client.send("GET /feed HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                let head = try client.readHead()
                XCTAssertEqual(head.status, 200)
                XCTAssertEqual(head.headers["Content-Type"], "text/event-stream")
                XCTAssertEqual(head.headers["Transfer-Encoding"], "chunked", "a stream's length is not known")
                for (index, event) in events.enumerated() {
                    let chunk = try XCTUnwrap(try client.readChunk())
                    XCTAssertEqual(String(decoding: chunk, as: UTF8.self), try event.framed())
                    // Event n is sent n intervals after the head, never sooner.
                    XCTAssertGreaterThanOrEqual(seconds(since: start), Double(index) * 0.1)
                }
                XCTAssertNil(try client.readChunk(), "the stream ends after the last event")
            }
        }
    }

    func testAHeldRequestIsAnsweredWhenTheTestReleasesIt() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/spinner")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            async let fetched = session.data(from: server.url("/spinner"))
            let held = try await gate.arrived()
            XCTAssertEqual(held.url.absoluteString, "https://api.example.com/spinner")
            gate.release(with: .text("released"))
            let (data, _) = try await fetched
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "released")
        }
    }

    func testNextRequestSeesAServedRequest() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/events", method: "POST") { _ in .status(202) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(20) {
            let session = plainSession()
            defer { session.finishTasksAndInvalidate() }
            var request = URLRequest(url: server.url("/events"))
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"tap":1}"#.utf8)
            async let sent = session.data(for: request)
            let seen = try await mocks.nextRequest(matching: .url("https://api.example.com/events").method("POST"))
            XCTAssertEqual(String(decoding: seen.body, as: UTF8.self), #"{"tap":1}"#)
            let (_, response) = try await sent
            XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 202)
        }
    }

    func testStoppingCancelsAHandlerInProgressAndClosesThePort() async throws {
        let mocks = MockRegistry()
        let started = Shared(false)
        let cancelled = Shared(false)
        mocks.register("https://api.example.com/forever") { _ async throws -> MockResponse in
            started.update { $0 = true }
            do {
                try await Task.sleep(nanoseconds: 30_000_000_000)
            } catch {
                cancelled.update { $0 = true }
                throw error
            }
            return .status(200)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let port = server.port
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: port)
                client.send("GET /forever HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                while !started.current { usleep(1_000) }
                server.stop()
                XCTAssertTrue(client.waitForClose(), "the connection is closed with the server")
                while !cancelled.current { usleep(1_000) }
                XCTAssertThrowsError(try RawHTTPClient(port: port), "nothing listens on the port any more")
            }
        }
        XCTAssertTrue(cancelled.current)
    }
}
