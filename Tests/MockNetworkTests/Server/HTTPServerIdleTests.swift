import Foundation
import MockNetworkServer
import XCTest

/// `idleTimeout` is silence: a client that keeps sending, however slowly, is never cut off, head or
/// body; one that stops sending mid-request gets 408 once it has been silent that long.
final class HTTPServerIdleTests: XCTestCase {
    /// Sends `bytes` one at a time, waiting up to `milliseconds` before each for an answer (a 408
    /// cuts the drip short); whether the whole of it went before any answer came.
    private static func drip(_ bytes: [UInt8], to client: RawHTTPClient, every milliseconds: Int32) -> Bool {
        for byte in bytes {
            if client.hasDataWaiting(milliseconds: milliseconds) { return false }
            client.send([byte])
        }
        return true
    }

    func testARequestSentAByteAtATimeOutlastsTheIdleTimeout() async throws {
        let idle: TimeInterval = 0.5
        let server = try HTTPServer(limits: HTTPServerLimits(idleTimeout: idle), responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                defer { client.close() }
                let start = Date()
                // A head of 44 bytes and a body of 24, a byte every 25 ms: 1.7 s, each gap 1/20 of the
                // idle time.
                let head = Array("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 24\r\n\r\n".utf8)
                XCTAssertTrue(Self.drip(head, to: client, every: 25), "the head was cut short")
                let body = Array("a body that drips slowly".utf8)
                XCTAssertTrue(Self.drip(body, to: client, every: 25), "the body was cut short")
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 200)
                XCTAssertEqual(response.text, "a body that drips slowly")
                XCTAssertGreaterThan(Date().timeIntervalSince(start), idle * 2, "longer than the idle time")
            }
        }
    }

    func testAClientSilentMidRequestGets408AfterTheIdleTimeFromItsLastByte() async throws {
        let idle: TimeInterval = 0.3
        let server = try HTTPServer(limits: HTTPServerLimits(idleTimeout: idle), responder: echo)
        defer { server.stop() }
        try await withWatchdog(20) {
            try await offThread {
                let client = try RawHTTPClient(port: server.port)
                defer { client.close() }
                // Bytes for longer than the idle time, then silence.
                let head = Array("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc".utf8)
                let start = Date()
                XCTAssertTrue(Self.drip(head, to: client, every: 15))
                let lastByte = Date()
                XCTAssertGreaterThan(lastByte.timeIntervalSince(start), idle, "sent for longer than the idle time")
                let response = try client.readResponse()
                XCTAssertEqual(response.status, 408)
                let silence = Date().timeIntervalSince(lastByte)
                XCTAssertGreaterThanOrEqual(silence, idle * 0.9, "counted from the last byte")
                XCTAssertTrue(client.waitForClose())
            }
        }
    }
}
