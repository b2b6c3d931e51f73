import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

/// A registry served as `https://api.example.com`, and a raw socket client that opened `path` on it
/// and read the handshake's answer; both end when `body` returns.
func withSocket(
    _ mocks: MockRegistry, path: String = "/chat", protocols: [String] = [],
    limits: HTTPServerLimits = HTTPServerLimits(), expectStatus: Int = 101,
    _ body: @escaping @Sendable (RawWebSocketClient, MockServer) throws -> Void
) async throws {
    let server = try MockServer(serving: mocks, as: ["https://api.example.com"], limits: limits)
    defer { server.stop() }
    try await withWatchdog(30) {
        try await offThread {
            let client = try RawWebSocketClient(port: server.port, path: path, protocols: protocols)
            defer { client.close() }
            let head = try client.readHandshake()
            XCTAssertEqual(head.status, expectStatus, "the handshake's answer")
            try body(client, server)
        }
    }
}

/// A registry served as `https://api.example.com`, a raw socket client that opened `path` on it, and
/// the socket the server took for it (`nextWebSocket()`, with the handshake's answer read): what a
/// test that drives a socket works with. The server stops when `body` returns (stopping it earlier
/// is fine).
func withOpenSocket(
    _ mocks: MockRegistry, path: String = "/chat", timeout: TimeInterval = 5,
    _ body: @escaping @Sendable (RawWebSocketClient, MockWebSocket, MockServer) async throws -> Void
) async throws {
    let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
    defer { server.stop() }
    try await withWatchdog(60) {
        let client = try RawWebSocketClient(port: server.port, path: path, timeout: timeout)
        defer { client.close() }
        async let opened = offThread { try client.readHandshake().status }
        let socket = try await mocks.nextWebSocket()
        let status = try await opened
        XCTAssertEqual(status, 101, "the handshake's answer")
        try await body(client, socket, server)
    }
}
