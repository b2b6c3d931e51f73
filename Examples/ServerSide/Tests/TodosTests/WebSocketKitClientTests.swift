import Foundation
import MockNetworkServer
import MockNetworkTesting
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing
import WebSocketKit

/// WebSocketKit, a SwiftNIO WebSocket client, against the test's registry served by a `MockServer`
/// as `https://api.example.com`: the client opens `ws://127.0.0.1:<port>/…` and the handlers
/// registered for `wss://api.example.com/…` answer it over a real socket.
@Suite(.mockNetwork, .timeLimit(.minutes(1)))
struct WebSocketKitClientTests {
    @Test func textAndBinaryMessagesComeBackFromAnEcho() async throws {
        let mocks = MockRegistry.current
        mocks.webSocket("wss://api.example.com/chat") { socket in
            for try await message in socket.messages { await socket.send(message) }
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try await ClientSocket.open(server, "/chat")

        try await client.send(text: "hello")
        #expect(try await client.next() == .text("hello"))
        try await client.send(binary: [0, 1, 2, 255])
        #expect(try await client.next() == .binary([0, 1, 2, 255]))
        try await client.close()

        let socket = try #require(mocks.webSockets.first)
        #expect(socket.url.absoluteString == "wss://api.example.com/chat")
        #expect(socket.received == [.text("hello"), .data(Data([0, 1, 2, 255]))])
        #expect(socket.closeCode == .normal)
    }

    @Test func theServerPicksTheSubprotocolTheHandlerSpeaks() async throws {
        let mocks = MockRegistry.current
        mocks.webSocket("wss://api.example.com/chat", subprotocols: ["chat.v2"]) { socket in
            await socket.send(.text(socket.subprotocol ?? "none"))
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        let offersBoth = try await ClientSocket.open(
            server, "/chat", headers: ["Sec-WebSocket-Protocol": "chat.v1, chat.v2"])
        #expect(try await offersBoth.next() == .text("chat.v2"))
        #expect(try await offersBoth.next() == .closed(.normalClosure))

        let offersOld = try await ClientSocket.open(server, "/chat", headers: ["Sec-WebSocket-Protocol": "chat.v1"])
        #expect(try await offersOld.next() == .text("none"))
        #expect(try await offersOld.next() == .closed(.normalClosure))

        #expect(mocks.webSockets.map(\.subprotocol) == ["chat.v2", nil])
    }

    @Test func aCloseFromTheServerReachesTheClientWithItsCode() async throws {
        let mocks = MockRegistry.current
        let (closed, serverClosed) = AsyncStream.makeStream(of: Void.self)
        mocks.webSocket("wss://api.example.com/chat") { socket in
            let first = try await socket.receive()
            #expect(first == "hello")
            await socket.close(WebSocketCloseCode(rawValue: 4001), reason: "session expired")
            serverClosed.finish()  // `close` returns once the connection closed
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try await ClientSocket.open(server, "/chat")

        try await client.send(text: "hello")
        // WebSocketKit keeps the code of the server's close frame (`closeCode`), not its reason.
        #expect(try await client.next() == .closed(.unknown(4001)))
        #expect(client.socket.closeCode == .unknown(4001))
        try await within("the server's close") { for await _ in closed {} }
        // The client answered the close with the same code, as RFC 6455 asks, and no reason.
        let socket = try #require(mocks.webSockets.first)
        #expect(
            socket.events == [
                .received("hello"),
                .closed(by: .server, code: WebSocketCloseCode(rawValue: 4001), reason: "session expired"),
                .closed(by: .client, code: WebSocketCloseCode(rawValue: 4001), reason: ""),
            ])
    }

    @Test func aScriptedSocketGreetsAndAnswersEachMessage() async throws {
        let mocks = MockRegistry.current
        mocks.webSocket(
            "wss://api.example.com/prices", onOpen: ["ready"],
            replies: ["subscribe": ["42.0", "42.5"], .data(Data([1])): [.data(Data([2, 3]))]])
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try await ClientSocket.open(server, "/prices")

        #expect(try await client.next() == .text("ready"))
        try await client.send(text: "subscribe")
        #expect(try await client.next() == .text("42.0"))
        #expect(try await client.next() == .text("42.5"))
        try await client.send(binary: [1])
        #expect(try await client.next() == .binary([2, 3]))
        try await client.close()
    }

    @Test func aPingFromTheServerIsAnsweredByTheClient() async throws {
        let mocks = MockRegistry.current
        mocks.webSocket("wss://api.example.com/chat") { socket in
            try await socket.ping(Data("are you there".utf8))  // returns when the client's pong came
            await socket.send("pong came")
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let client = try await ClientSocket.open(server, "/chat")

        #expect(try await client.next() == .text("pong came"))
        #expect(try await client.next() == .closed(.normalClosure))
    }

    @Test func anHTTPHandlerThatRefusesTheHandshakeFailsTheConnect() async throws {
        let mocks = MockRegistry.current
        mocks.register("wss://api.example.com/chat") { _ in .status(401) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        let error = await #expect(throws: WebSocketClient.Error.self) {
            _ = try await ClientSocket.open(server, "/chat")
        }
        guard case .invalidResponseStatus(let head) = error else {
            Issue.record("expected the 401 to fail the upgrade, got \(String(describing: error))")
            return
        }
        #expect(head.status == .unauthorized)
        #expect(mocks.webSockets.isEmpty)
    }
}

/// What a WebSocketKit client saw on its socket.
enum ClientEvent: Sendable, Equatable {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary([UInt8])
    /// The connection closed; the code of the close frame, if one came.
    case closed(WebSocketErrorCode?)
}

/// A WebSocketKit client's socket on NIO's shared event loops, with what it received in order.
/// Every wait gives up after 5 seconds.
struct ClientSocket: Sendable {
    /// WebSocketKit's socket.
    let socket: WebSocket
    /// What the socket received, in order, ending with `.closed`.
    let events: AsyncStream<ClientEvent>

    /// Opens `ws://127.0.0.1:<port><path>` on `server` with WebSocketKit, offering `headers`.
    /// The socket's callbacks are in place before any frame is read (WebSocketKit's `onUpgrade`
    /// runs on the channel's event loop before the frames after the handshake are passed on), so a
    /// message the server sends as the socket opens is not missed.
    static func open(_ server: MockServer, _ path: String, headers: HTTPHeaders = [:]) async throws -> ClientSocket {
        let (events, received) = AsyncStream.makeStream(of: ClientEvent.self)
        let (opened, upgraded) = AsyncStream.makeStream(of: WebSocket.self)
        try await within("the handshake") {
            try await WebSocket.connect(
                to: "ws://127.0.0.1:\(server.port)\(path)", headers: headers,
                on: MultiThreadedEventLoopGroup.singleton
            ) { socket in
                socket.onText { _, text in received.yield(.text(text)) }
                socket.onBinary { _, bytes in received.yield(.binary(Array(bytes.readableBytesView))) }
                socket.onClose.whenComplete { _ in
                    received.yield(.closed(socket.closeCode))
                    received.finish()
                }
                upgraded.yield(socket)
                upgraded.finish()
            }.get()
        }
        var sockets = opened.makeAsyncIterator()
        guard let socket = await sockets.next() else { throw ClientSocketError("the upgrade gave no socket") }
        return ClientSocket(socket: socket, events: events)
    }

    /// The next thing the socket received.
    func next() async throws -> ClientEvent? {
        let events = self.events
        return try await within("a message") {
            var iterator = events.makeAsyncIterator()
            return await iterator.next()
        }
    }

    /// Sends a text message.
    func send(text: String) async throws {
        let socket = self.socket
        try await within("sending") { try await socket.send(text) }
    }

    /// Sends a binary message.
    func send(binary: [UInt8]) async throws {
        let socket = self.socket
        try await within("sending") { try await socket.send(binary) }
    }

    /// Closes with 1000 and waits until the connection is closed.
    func close() async throws {
        let socket = self.socket
        try await within("closing") {
            try await socket.close(code: .normalClosure)
            try await socket.onClose.get()
        }
    }
}

/// The WebSocketKit client did not do what a test needed of it.
struct ClientSocketError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    /// An error saying `description`.
    init(_ description: String) { self.description = description }
}

/// Runs `body`, and fails with ``ClientSocketError`` when it takes longer than `limit`; the
/// tests' bound on every wait for the client or the server.
func within<Value: Sendable>(
    _ what: String, limit: Duration = .seconds(5), _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw ClientSocketError("\(what) took longer than \(limit)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
