import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sockets answered by a registry's handlers, seen from a client on a bare socket: the handshake,
/// matching, subprotocols, refusals, the three forms of registration, closes either way, the log,
/// and the failures a test gets.
final class WebSocketServerTests: XCTestCase {
    func testAHandlerEchoesTextAndBinaryAndTheLogKeepsBothWays() async throws {
        let mocks = MockRegistry()
        let seen = Shared<URLRequest?>(nil)
        mocks.webSocket("wss://api.example.com/chat") { socket in
            seen.update { $0 = socket.request }
            for try await message in socket.messages { await socket.send(message) }
        }
        try await withSocket(mocks) { client, _ in
            client.sendText("hello")
            XCTAssertEqual(try client.readFrame(), .init(fin: true, opcode: 0x1, payload: Array("hello".utf8)))
            client.send(opcode: 0x2, [0, 1, 255])
            XCTAssertEqual(try client.readFrame(), .init(fin: true, opcode: 0x2, payload: [0, 1, 255]))
            client.sendClose(1000, reason: "bye")
            XCTAssertEqual(try client.readFrame().closeCode, 1000, "the close is answered with its code")
            XCTAssertTrue(client.waitForClose())
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed()
        XCTAssertEqual(
            socket.events,
            [
                .received("hello"), .sent("hello"), .received(.data(Data([0, 1, 255]))),
                .sent(.data(Data([0, 1, 255]))),
                .closed(by: .client, code: .normal, reason: "bye"),
            ])
        XCTAssertEqual(socket.received, ["hello", .data(Data([0, 1, 255]))])
        XCTAssertEqual(socket.closeCode, .normal)
        XCTAssertEqual(socket.closeReason, "bye")
        XCTAssertFalse(socket.isOpen)
        XCTAssertEqual(seen.current?.url?.absoluteString, "wss://api.example.com/chat", "the URL the client believes")
        XCTAssertEqual(seen.current?.value(forHTTPHeaderField: "Sec-WebSocket-Version"), "13")
        XCTAssertEqual(
            mocks.requests.map(\.url.absoluteString), ["wss://api.example.com/chat"], "the handshake is logged")
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testTheAcceptKeyIsRFC6455sAndAPlainOriginGivesWs() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("ws://chat.test/room/{name}") { socket in
            await socket.send(.text(socket.url.absoluteString))
        }
        let server = try MockServer(serving: mocks, as: ["http://chat.test"])
        defer { server.stop() }
        try await withWatchdog(30) {
            try await offThread {
                let client = try RawWebSocketClient(port: server.port, path: "/room/lobby")
                defer { client.close() }
                let head = try client.readHandshake()
                XCTAssertEqual(head.status, 101)
                XCTAssertEqual(head.headers["Upgrade"], "websocket")
                XCTAssertEqual(head.headers["Connection"], "Upgrade")
                // RFC 6455, 1.3: the sample key's accept value.
                XCTAssertEqual(head.headers["Sec-WebSocket-Accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
                XCTAssertEqual(try client.readFrame().text, "ws://chat.test/room/lobby", "a template matches")
                XCTAssertEqual(try client.readFrame().closeCode, 1000, "the handler returned: a normal close")
                client.sendClose(1000)
                XCTAssertTrue(client.waitForClose())
            }
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testTheServerChoosesTheFirstOfferedSubprotocolItsHandlerSpeaks() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat", subprotocols: ["chat.v1", "chat.v2"]) { socket in
            await socket.send(.text(socket.subprotocol ?? "none"))
            _ = try await socket.receive()
        }
        try await withSocket(mocks, protocols: ["chat.v3", "chat.v2", "chat.v1"]) { client, _ in
            XCTAssertEqual(try client.readFrame().text, "chat.v2")
            client.sendText("done")
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        try await withSocket(mocks, protocols: ["other"]) { client, _ in
            XCTAssertEqual(try client.readFrame().text, "none", "none offered is spoken: no subprotocol")
            client.sendText("done")
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAnHTTPHandlerOnTheSocketsURLRefusesTheHandshake() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { _ in XCTFail("a refused socket has no handler") }
        mocks.register(.url("wss://api.example.com/chat").header("Authorization", "Bearer expired")) { _ in
            .text("token expired", status: 401)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(30) {
            try await offThread {
                let refused = try RawHTTPClient(port: server.port)
                defer { refused.close() }
                _ = refused.send(
                    "GET /chat HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                        + "Authorization: Bearer expired\r\n\r\n")
                let answer = try refused.readResponse()
                XCTAssertEqual(answer.status, 401)
                XCTAssertEqual(answer.text, "token expired")
            }
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testASocketNoHandlerMatchesGets404AndFailsTheTestWithTheNearestRegistration() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { _ in }
        try await withSocket(mocks, path: "/chats", expectStatus: 404) { _, _ in }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.message.contains("wss://api.example.com/chats") == true, "\(failures)")
        XCTAssertTrue(failures.first?.message.contains("wss://api.example.com/chat") == true, "\(failures)")
    }

    func testAHandshakeThatBreaksTheRulesIsRefusedWithoutAHandler() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { _ in XCTFail("no socket opens") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(30) {
            try await offThread {
                let cases: [(fields: String, status: Int, says: String)] = [
                    (
                        "Connection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13", 400,
                        "Sec-WebSocket-Key"
                    ),
                    (
                        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8",
                        426, "13"
                    ),
                    (
                        "Connection: keep-alive\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13",
                        400, "Connection"
                    ),
                ]
                for (fields, status, says) in cases {
                    let client = try RawHTTPClient(port: server.port)
                    defer { client.close() }
                    _ = client.send(
                        "GET /chat HTTP/1.1\r\nHost: api.example.com\r\nUpgrade: websocket\r\n\(fields)\r\n\r\n")
                    let answer = try client.readResponse()
                    XCTAssertEqual(answer.status, status, fields)
                    XCTAssertTrue(answer.text.contains(says), answer.text)
                    if status == 426 { XCTAssertEqual(answer.headers["Sec-WebSocket-Version"], "13") }
                }
            }
        }
        XCTAssertTrue(mocks.requests.isEmpty, "no handler saw a broken handshake")
    }

    func testTheServerClosesWithACodeAndReasonAndWaitsForTheClientsClose() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            await socket.close(WebSocketCloseCode(rawValue: 4000), reason: "room closed")
        }
        try await withSocket(mocks) { client, _ in
            let close = try client.readFrame()
            XCTAssertEqual(close.closeCode, 4000)
            XCTAssertEqual(String(decoding: close.payload.dropFirst(2), as: UTF8.self), "room closed")
            client.sendClose(4000)
            XCTAssertTrue(client.waitForClose(), "the client's answer completes the handshake")
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed()
        XCTAssertEqual(
            socket.events,
            [
                .closed(by: .server, code: WebSocketCloseCode(rawValue: 4000), reason: "room closed"),
                .closed(by: .client, code: WebSocketCloseCode(rawValue: 4000), reason: ""),
            ], "the server's close, then the client's answer")
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAScriptSendsOnOpenAndRepliesAndAMessageItHasNoReplyForFailsAtItsLine() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.webSocket("wss://api.example.com/prices", onOpen: ["ready"], replies: ["subscribe": ["42.0", "42.5"]])
        try await withSocket(mocks, path: "/prices") { client, _ in
            XCTAssertEqual(try client.readFrame().text, "ready")
            client.sendText("subscribe")
            XCTAssertEqual(try client.readFrame().text, "42.0")
            XCTAssertEqual(try client.readFrame().text, "42.5")
            client.sendText("unsubscribe")
            client.sendClose(1000)
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.map(\.location?.line), [line])
        XCTAssertEqual(
            failures.first?.message,
            "MockNetwork: the client sent \"unsubscribe\" on wss://api.example.com/prices, and the script registered "
                + "here has no reply for it. Add it to replies:, or register a handler that reads every message.")
    }

    func testAScriptsOpeningMessagesGoBeforeAReplyToAMessageSentAtOnce() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/prices", onOpen: ["ready", "set"], replies: ["go": ["gone"]])
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(30) {
            try await offThread {
                // The handshake and the first message in one write: the script reads it at once.
                let client = try RawWebSocketClient(port: server.port, path: "/prices")
                defer { client.close() }
                client.sendText("go")
                XCTAssertEqual(try client.readHandshake().status, 101)
                XCTAssertEqual(try (0..<3).map { _ in try client.readFrame().text }, ["ready", "set", "gone"])
                client.sendClose(1000)
                XCTAssertEqual(try client.readFrame().closeCode, 1000)
            }
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testATestThatReadsWithNextWebSocketMessageAloneNeverFillsTheSocket() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/upload")
        try await withOpenSocket(mocks, path: "/upload", timeout: 10) { client, socket, _ in
            let count = 40  // 2.4 MB: past the 1 MiB a socket's unread messages may hold
            let sending = Task {
                try await offThread {
                    for _ in 0..<count { client.send(opcode: 0x2, [UInt8](repeating: 3, count: 60_000)) }
                }
            }
            for _ in 0..<count {
                let (message, from) = try await mocks.nextWebSocketMessage()
                XCTAssertEqual(message.data.count, 60_000)
                XCTAssertTrue(from === socket)
            }
            try await sending.value
            async let closed: Void = socket.close()
            _ = try await offThread { try client.readFrame() }
            client.sendClose(1000)
            await closed
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAHandlerThatBlocksItsThreadStallsOnlyItsOwnSocket() async throws {
        let mocks = MockRegistry()
        let stuck = DispatchSemaphore(value: 0)
        let blocking = Gate()
        mocks.webSocket("wss://api.example.com/stuck") { socket in
            _ = try await socket.receive()
            blocking.open()
            stuck.wait()  // blocks its thread, as a handler should not
            await socket.send("released")
        }
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        try await withWatchdog(30) {
            let first = try RawWebSocketClient(port: server.port, path: "/stuck")
            defer { first.close() }
            _ = try await offThread { try first.readHandshake() }
            first.sendText("block")
            await blocking.wait()
            // Another socket on the same server, and another registry's, answer meanwhile.
            let other = MockRegistry()
            other.webSocket("wss://api.example.com/chat") { socket in await socket.send("hello") }
            let otherServer = try MockServer(serving: other, as: ["https://api.example.com"])
            defer { otherServer.stop() }
            try await offThread {
                for port in [server.port, otherServer.port] {
                    let client = try RawWebSocketClient(port: port, path: "/chat")
                    defer { client.close() }
                    XCTAssertEqual(try client.readHandshake().status, 101)
                    if port == server.port {
                        client.sendText("still here")
                        XCTAssertEqual(try client.readFrame().text, "still here")
                    } else {
                        XCTAssertEqual(try client.readFrame().text, "hello")
                    }
                    client.sendClose(1000)
                    XCTAssertEqual(try client.readFrame().closeCode, 1000)
                }
            }
            stuck.signal()
            let released = try await offThread { try first.readFrame().text }
            XCTAssertEqual(released, "released")
            first.sendClose(1000)
        }
    }

    func testAHandlersErrorClosesWith1011AndFailsTheTestAtItsRegistration() async throws {
        struct Broken: Error {}
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.webSocket("wss://api.example.com/chat") { socket in
            _ = try await socket.receive()
            throw Broken()
        }
        try await withSocket(mocks) { client, _ in
            client.sendText("boom")
            XCTAssertEqual(try client.readFrame().closeCode, 1011)
            client.sendClose(1011)
        }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.map(\.location?.line), [line])
        XCTAssertTrue(failures.first?.message.contains("threw Broken()") == true, "\(failures)")
        XCTAssertTrue(failures.first?.message.contains("1011 (internal error)") == true, "\(failures)")
    }

    func testMessagesNothingReadFailTheTestWhenTheSocketCloses() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.webSocket("wss://api.example.com/chat") { socket in
            _ = try await socket.receive()  // reads the first only
            await socket.close()
        }
        try await withSocket(mocks) { client, _ in
            client.sendText("one")
            client.sendText("two")
            client.sendText("three")
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
            client.sendClose(1000)
            XCTAssertTrue(client.waitForClose())
        }
        try await mocks.webSockets.first?.awaitClosed()
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.map(\.location?.line), [line])
        XCTAssertTrue(failures.first?.message.contains("2 messages") == true, "\(failures)")
        XCTAssertTrue(failures.first?.message.contains("\"two\", \"three\"") == true, "\(failures)")
    }

    func testTheTestDrivesASocketItTakesWithNextWebSocket() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat")
        try await withOpenSocket(mocks) { client, socket, _ in
            // The test says when: a message now, and the client's answer awaited.
            await socket.send("question")
            let read = try await offThread { try client.readFrame().text }
            XCTAssertEqual(read, "question")
            client.sendText("answer")
            let next = try await mocks.nextWebSocketMessage()
            XCTAssertEqual(next.message, "answer")
            XCTAssertTrue(next.socket === socket)
            await socket.send(["a", "b", "c"], every: .milliseconds(5))
            let schedule = try await offThread { try (0..<3).map { _ in try client.readFrame().text } }
            XCTAssertEqual(schedule, ["a", "b", "c"])
            async let closed: Void = socket.close(.goingAway, reason: "done")
            let close = try await offThread { try client.readFrame() }
            XCTAssertEqual(close.closeCode, 1001)
            client.sendClose(1001)
            await closed
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAwaitingASocketOrAMessageThatNeverComesFailsAtTheCallersLine() async throws {
        let mocks = MockRegistry()
        let line = #line + 2
        do {
            _ = try await mocks.nextWebSocket(timeout: .milliseconds(20))
            XCTFail("no socket opened")
        } catch let error as WebSocketError {
            XCTAssertEqual(error, .timedOut("no WebSocket opened within 0.02 s"))
        }
        let messageLine = #line + 2
        do {
            _ = try await mocks.nextWebSocketMessage(timeout: .milliseconds(20))
            XCTFail("no message came")
        } catch let error as WebSocketError {
            XCTAssertEqual(error.description, "MockNetwork: no WebSocket message came within 0.02 s.")
        }
        XCTAssertEqual(mocks.takeFailures().map(\.location?.line), [line, messageLine])
    }

    func testAHoldKeepsTheServersMessagesBackButNotItsPongs() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat")
        try await withOpenSocket(mocks) { client, socket, _ in
            let hold = socket.hold()
            await socket.send("first")
            await socket.send("second")
            // A ping sent after the held messages is answered at once: its pong arrives before them.
            client.send(opcode: 0x9, Array("are you there".utf8))
            let pong = try await offThread { try client.readFrame() }
            XCTAssertEqual(pong, .init(fin: true, opcode: 0xA, payload: Array("are you there".utf8)))
            hold.release()
            let released = try await offThread { try [client.readFrame().text, client.readFrame().text] }
            XCTAssertEqual(released, ["first", "second"])
            client.sendClose(1000)
            try await socket.awaitClosed()
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testADropMidMessageCutsTheConnectionInsideAFrame() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            socket.drop(midMessage: .text(String(repeating: "x", count: 1000)))
        }
        try await withSocket(mocks) { client, _ in
            XCTAssertThrowsError(try client.readFrame(), "the frame never ends") { error in
                XCTAssertTrue("\(error)".contains("short"), "\(error)")
            }
        }
        let socket = try XCTUnwrap(mocks.webSockets.first)
        try await socket.awaitClosed()
        XCTAssertEqual(socket.events, [.closed(by: .server, code: .abnormal, reason: "dropped")])
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testAServersPingReturnsWhenThePongComes() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            try await socket.ping(Data("1".utf8))
            await socket.send("pong seen")
            _ = try await socket.receive()
        }
        try await withSocket(mocks) { client, _ in
            let ping = try client.readFrame()
            XCTAssertEqual(ping.opcode, 0x9)
            XCTAssertEqual(ping.payload, Array("1".utf8))
            client.send(opcode: 0xA, ping.payload)
            XCTAssertEqual(try client.readFrame().text, "pong seen")
            client.sendText("bye")
            XCTAssertEqual(try client.readFrame().closeCode, 1000)
        }
        XCTAssertTrue(mocks.failures.isEmpty, "\(mocks.failures)")
    }

    func testASocketStillOpenWhenTheTestEndsFailsAtItsRegistrationAndTheStopClosesIt() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        try await withOpenSocket(mocks) { client, socket, server in
            let failures = await mocks.awaitSettledFailures()
            XCTAssertEqual(failures.map(\.location?.line), [line])
            XCTAssertEqual(
                failures.first?.message,
                "MockNetwork: the WebSocket to wss://api.example.com/chat was still open when the test ended (or "
                    + "its server stopped). Close it before: in the client (URLSessionWebSocketTask's "
                    + "cancel(with:reason:)), or on the server (return from the handler, or socket.close()).")
            server.stop()
            let close = try await offThread { try client.readFrame() }
            XCTAssertEqual(close.closeCode, 1001, "a stopping server is going away")
            try await socket.awaitClosed()
        }
    }

    func testAnXCTestEndWaitingOnItsThreadReportsTheOpenSocketToo() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.webSocket("wss://api.example.com/chat")
        try await withOpenSocket(mocks) { _, _, _ in
            // `tearDown`'s end: blocking, on a thread that is not the concurrency pool's.
            let failures = try await offThread { mocks.settledFailures() }
            XCTAssertEqual(failures.map(\.location?.line), [line])
        }
    }

    func testASocketTheClientClosedJustBeforeTheEndIsNoFailure() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        try await withOpenSocket(mocks) { client, _, _ in
            client.sendClose(1000)  // and the test ends at once, its close on the way
            let failures = await mocks.awaitSettledFailures()
            XCTAssertEqual(failures, [])
        }
    }

    func testOneSocketPastTheLimitIsRefusedWith503() async throws {
        let mocks = MockRegistry()
        mocks.webSocket("wss://api.example.com/chat")
        try await withSocket(mocks, limits: HTTPServerLimits(maxWebSockets: 1)) { first, server in
            let second = try RawWebSocketClient(port: server.port, path: "/chat")
            defer { second.close() }
            XCTAssertEqual(try second.readHandshake().status, 503)
            first.sendClose(1000)
            XCTAssertEqual(try first.readFrame().closeCode, 1000)
            XCTAssertTrue(first.waitForClose())
        }
    }
}
