import Foundation
import MockNetwork
import MockNetworkArchives
import MockNetworkServer
import XCTest

/// A socket's messages in the registry's traffic: the archive a failing test attaches, and an
/// export, show the handshake as `101` with `_webSocketMessages`, as browsers' archives do.
final class WebSocketTrafficTests: XCTestCase {
    func testTheHandshakesEntryCarriesTheMessagesBothWays() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/token") { _ in .json(#"{"token": "t"}"#) }
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        try await withSocket(mocks) { client, _ in
            client.sendText("hello")
            _ = try client.readFrame()
            client.send(opcode: 0x2, [1, 2, 3])
            _ = try client.readFrame()
            client.sendClose(1000)
            _ = try client.readFrame()
        }
        try await mocks.webSockets.first?.awaitClosed()
        let archive = mocks.exportedArchive()
        let entry = try XCTUnwrap(archive.entries.first)
        XCTAssertEqual(entry.request.url, "wss://api.example.com/chat")
        XCTAssertEqual(entry.response.status, 101)
        XCTAssertEqual(entry.response.statusText, "Switching Protocols")
        XCTAssertFalse(entry.response.headers.contains { $0.name.lowercased().hasPrefix("mocknetwork") })
        let messages = try XCTUnwrap(entry.webSocketMessages)
        XCTAssertEqual(messages.map(\.type), ["send", "receive", "send", "receive"])
        XCTAssertEqual(messages.map(\.opcode), [1, 1, 2, 2])
        XCTAssertEqual(messages.map(\.data), ["hello", "hello", "AQID", "AQID"])
        XCTAssertEqual(messages.map(\.time), messages.map(\.time).sorted())
        let json = String(decoding: try archive.json(), as: UTF8.self)
        XCTAssertTrue(json.contains("\"_webSocketMessages\""), json)
        XCTAssertEqual(try HTTPArchive(json: Data(json.utf8)).entries.first?.webSocketMessages, messages, "read back")
        let report = try XCTUnwrap(mocks.trafficReport())
        XCTAssertTrue(
            String(decoding: report.json, as: UTF8.self).contains("\"_webSocketMessages\""),
            String(decoding: report.json, as: UTF8.self))
    }
}
