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
