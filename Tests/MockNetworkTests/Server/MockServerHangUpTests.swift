import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client that gives up on its answer ends its request, as on a real server: no failure when the
/// server stops or the test ends, whichever comes first, the client's close or the stop. An answer
/// whose last byte was written is complete.
final class MockServerHangUpTests: XCTestCase {
    /// The three ways a handler answers slowly, in turn.
    private static func registerSlowAnswer(_ kind: Int, in mocks: MockRegistry) {
        switch kind % 3 {
        case 0:
            mocks.register("https://api.example.com/slow") { _ in MockResponse.text("late").delayed(by: 2) }
        case 1:
            mocks.hold("https://api.example.com/slow")
        default:
            mocks.register("https://api.example.com/slow") { _ async throws -> MockResponse in
                try await Task.sleep(nanoseconds: 2_000_000_000)
                return .text("late")
            }
        }
    }

    /// The client gives up, and the test stops the server as soon as it hears: the client closes its
    /// connection a moment later (measured: about 0.3 ms after its error). It gives up by its timeout
    /// of 0.3 s (on Linux, Foundation takes a timeout under a second as none, and gives up within a
    /// few milliseconds, while the request is being answered), or by cancelling once the request
    /// reached the registry.
    func testAClientThatGaveUpIsNoFailureWhenTheServerStopsRightAfter() async throws {
        let failed = try await withWatchdog(60) {
            var failed: [String] = []
            for round in 0..<18 {
                let mocks = MockRegistry()
                Self.registerSlowAnswer(round, in: mocks)
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                let session = plainSession()
                defer { session.finishTasksAndInvalidate() }
                var request = URLRequest(url: server.url("/slow"))
                if round.isMultiple(of: 2) {
                    request.timeoutInterval = 0.3
                    do {
                        _ = try await session.data(for: request)
                        XCTFail("answered before the client's timeout")
                    } catch {
                        XCTAssertEqual((error as? URLError)?.code, .timedOut)
                    }
                } else {
                    let fetch = Task { try await session.data(for: request) }
                    _ = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: 10)
                    fetch.cancel()
                    if case .success = await fetch.result { XCTFail("answered before the client cancelled") }
                }
                server.stop()
                failed += await mocks.awaitSettledFailures().map { "round \(round): \($0.message)" }
            }
            return failed
        }
        XCTAssertEqual(failed, [], "\(failed.count) failures in 18 rounds")
    }

    /// The client is gone before the stop, and the server has not read its close yet (the
    /// connection's thread runs the handler): the stop sees the close on the socket.
    func testAClientThatLeftBeforeTheStopIsNoFailureThoughTheServerHasNotReadItsClose() async throws {
        let mocks = MockRegistry()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        mocks.register("https://api.example.com/busy") { _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
            return .text("late")
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try RawHTTPClient(port: server.port)
        try await withWatchdog(20) {
            XCTAssertTrue(client.send("GET /busy HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
            try await offThread { XCTAssertEqual(entered.wait(timeout: .now() + 10), .success) }
            client.close()
            server.stop()
            release.signal()
            let failures = await mocks.awaitSettledFailures().map(\.message)
            XCTAssertEqual(failures, [])
        }
    }

    /// The stop comes first and the client's close a moment after: the server's grace hears it.
    func testAClientThatHangsUpJustAfterTheStopIsNoFailure() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/feed")
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try RawHTTPClient(port: server.port)
        try await withWatchdog(20) {
            XCTAssertTrue(client.send("GET /feed HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
            _ = try await gate.arrived()
            server.stop()
            client.close()
            let failures = await mocks.awaitSettledFailures().map(\.message)
            XCTAssertEqual(failures, [])
        }
    }

    /// The end of a test (here without a stop) sees a client that left, though the server has not
    /// read its close: the request is over, not still in flight.
    func testAServedRequestWhoseClientLeftIsNotStillInFlightWhenTheTestEnds() async throws {
        let mocks = MockRegistry()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() }
        mocks.register("https://api.example.com/busy") { _ in
            entered.signal()
            _ = release.wait(timeout: .now() + 10)
            return .text("late")
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let client = try RawHTTPClient(port: server.port)
        try await withWatchdog(20) {
            XCTAssertTrue(client.send("GET /busy HTTP/1.1\r\nHost: api.example.com\r\n\r\n"))
            try await offThread { XCTAssertEqual(entered.wait(timeout: .now() + 10), .success) }
            client.close()
            let failures = await mocks.awaitSettledFailures().map(\.message)
            XCTAssertEqual(failures, [])
        }
    }

    /// The client read every byte of a throttled answer (its length announced), then the test stops
    /// the server, maybe before the answer's end reached the registry: the answer is complete.
    func testAThrottledAnswerReadToItsLastByteIsCompleteWhenTheServerStops() async throws {
        let body = String(repeating: "x", count: 64)
        let failed = try await withWatchdog(60) {
            var failed: [String] = []
            for round in 0..<100 {
                let mocks = MockRegistry()
                mocks.register("https://api.example.com/slow") { _ in
                    MockResponse.text(body).throttled(bytesPerSecond: 1280)
                }
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                // The client stays connected, as a keep-alive client does: it has not left. The stop
                // follows its last read on the same thread.
                let client = try RawHTTPClient(port: server.port)
                defer { client.close() }
                let response = try await offThread {
                    client.send("GET /slow HTTP/1.1\r\nHost: api.example.com\r\n\r\n")
                    let response = try client.readResponse()
                    server.stop()
                    return response
                }
                XCTAssertEqual(response.text, body)
                XCTAssertEqual(response.headers["Content-Length"], "64")
                failed += await mocks.awaitSettledFailures().map { "round \(round): \($0.message)" }
            }
            return failed
        }
        XCTAssertEqual(failed, [], "\(failed.count) failures in 100 rounds")
    }
}
