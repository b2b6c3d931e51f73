import Foundation
import MockNetworkServer
import NIOPosix
import WebSocketKit

/// The app's client in the "WebSockets" article's recipe, on WebSocketKit: it subscribes to a
/// symbol, reads prices, answers the server's app-level `{"type":"ping"}` with a pong, reports a
/// message it cannot read, and after the connection drops (no close frame) connects again and
/// subscribes again, up to `reconnects` times.
actor PriceFeed {
    /// What the feed has seen, in order.
    enum Event: Sendable, Equatable {
        case price(String, Double)
        case malformed(String)
        case connected(Int)
        case closed(normally: Bool)
    }

    private let server: MockServer
    private let path: String
    private let reconnects: Int
    private var events: [Event] = []
    private var waiters: [(id: Int, count: Int, continuation: CheckedContinuation<[Event], Never>)] = []
    private var nextWaiter = 0
    private var socket: WebSocket?

    init(_ server: MockServer, path: String, reconnects: Int = 1) {
        (self.server, self.path, self.reconnects) = (server, path, reconnects)
    }

    /// Connects and subscribes to `symbol`; connects again after a drop.
    func subscribe(_ symbol: String) async throws {
        try await connect(symbol, attempt: 1)
    }

    /// Sends the app's keep-alive ping.
    func ping() async throws {
        try await socket?.send(#"{"type":"ping"}"#)
    }

    /// The events once there are `count` of them (or all so far after 5 seconds).
    func events(_ count: Int) async -> [Event] {
        if events.count >= count { return events }
        nextWaiter += 1
        let id = nextWaiter
        return await withCheckedContinuation { continuation in
            waiters.append((id, count, continuation))
            Task { [weak self] in
                try? await Task.sleep(for: .seconds(5))
                await self?.giveUp(id)
            }
        }
    }

    /// Closes the socket normally.
    func stop() async throws {
        try await socket?.close(code: .normalClosure)
    }

    private func connect(_ symbol: String, attempt: Int) async throws {
        try await WebSocket.connect(
            to: "ws://127.0.0.1:\(server.port)\(path)", on: MultiThreadedEventLoopGroup.singleton
        ) { socket in
            // One stream of what came, read by one task: messages in order, then the close.
            let (texts, received) = AsyncStream.makeStream(of: String.self)
            socket.onText { _, text in received.yield(text) }
            socket.onClose.whenComplete { _ in received.finish() }
            Task {
                await self.opened(socket, attempt: attempt, symbol: symbol)
                for await text in texts { await self.received(text, on: socket) }
                await self.closed(normally: socket.closeCode == .normalClosure, symbol: symbol, attempt: attempt)
            }
        }.get()
    }

    private func opened(_ socket: WebSocket, attempt: Int, symbol: String) async {
        self.socket = socket
        record(.connected(attempt))
        try? await socket.send(#"{"type":"subscribe","symbol":"\#(symbol)"}"#)
    }

    private func received(_ text: String, on socket: WebSocket) async {
        let message = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        switch message?["type"] as? String {
        case "price":
            guard let symbol = message?["symbol"] as? String, let price = message?["price"] as? Double else {
                return record(.malformed(text))
            }
            record(.price(symbol, price))
        case "ping":
            try? await socket.send(#"{"type":"pong"}"#)
        case "pong":
            break
        default:
            record(.malformed(text))
        }
    }

    private func closed(normally: Bool, symbol: String, attempt: Int) async {
        record(.closed(normally: normally))
        guard !normally, attempt <= reconnects else { return }
        try? await connect(symbol, attempt: attempt + 1)
    }

    private func record(_ event: Event) {
        events.append(event)
        let ready = waiters.filter { events.count >= $0.count }
        waiters.removeAll { events.count >= $0.count }
        for waiter in ready { waiter.continuation.resume(returning: events) }
    }

    private func giveUp(_ id: Int) {
        // Still waiting after 5 seconds: resumed with what came (the test's check then says what is missing).
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: events)
    }
}
