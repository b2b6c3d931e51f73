import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server's WebSockets: accepting a handshake a socket's registration answered, the limit on
/// sockets, and what is still open when the server stops or the test ends.
extension RegistryResponder {
    /// Switches the handshake's connection to a WebSocket answered by the registration `handshake`
    /// names (``WebSocketBook/handshakeID(route:)``).
    func accept(
        _ request: URLRequest, key: String, offered: [String], handshake: String, writer: HTTPResponseWriter
    ) {
        guard let book = WebSocketBook.existing(registry), let number = WebSocketBook.routeNumber(of: handshake),
            let route = book.route(number)
        else {
            return writer.abort()
        }
        let subprotocol = WebSocketHandshake.choose(offered: offered, speaks: route.subprotocols)
        let session = SocketSession(channel: writer.upgradedChannel(), maxMessageBytes: limits.maxWebSocketMessageBytes)
        let socket = MockWebSocket(
            request: request, subprotocol: subprotocol, session: session, route: route, book: book,
            handshakeID: handshake)
        session.socket = socket
        let id = ObjectIdentifier(socket)
        // Counted, against the limit, and booked before the `101` goes out: a client that has it can
        // be ahead of nothing here, and a stop that comes later closes this socket too.
        let refusal = sockets.withLock { sockets -> String? in
            if sockets.stopped { return "MockServer: the server is stopping." }
            if let refusal = Self.refusal(open: sockets.open.count, limit: limits.maxWebSockets) { return refusal }
            sockets.open[id] = socket
            return nil
        }
        if let refusal {
            return writer.respond(status: 503, headers: Self.textFields, body: Data((refusal + "\n").utf8))
        }
        let registry = registry
        book.socketOpened(socket, on: registry)
        session.onSwitch.withLock {
            $0 = {
                book.socketSwitched(socket)
                route.start(socket, registry: registry)
            }
        }
        session.onEnd { [weak self] in _ = self?.sockets.withLock { $0.open.removeValue(forKey: id) } }
        writer.switchProtocols(head: WebSocketHandshake.switchingHead(key: key, subprotocol: subprotocol), to: session)
    }

    /// Why a handshake is refused before any handler sees it: the server has as many sockets open
    /// as its limits take.
    func socketRefusal() -> String? {
        Self.refusal(open: sockets.withLock { $0.open.count }, limit: limits.maxWebSockets)
    }

    private static func refusal(open: Int, limit: Int) -> String? {
        guard open >= limit else { return nil }
        return "MockServer: \(open) WebSockets are open, as many as HTTPServerLimits.maxWebSockets takes."
    }

    /// `prefix` (`https://api.example.com`) with the scheme for sockets or for HTTP.
    static func prefix(_ prefix: String, webSocket: Bool) -> String {
        let swaps =
            webSocket
            ? [("https://", "wss://"), ("http://", "ws://")] : [("wss://", "https://"), ("ws://", "http://")]
        for (from, to) in swaps where prefix.lowercased().hasPrefix(from) {
            return to + prefix.dropFirst(from.count)
        }
        return prefix
    }

    /// The server stops: the client's messages nothing read on sockets that closed fail the test; each
    /// open socket's client has `grace` seconds to close it, then a socket still open fails the test
    /// and is closed with 1001 (going away).
    func closeSockets(grace: TimeInterval) {
        let open = sockets.withLock { sockets in
            sockets.stopped = true
            return Array(sockets.open.values)
        }
        WebSocketBook.existing(registry)?.reportUnread()
        for socket in open {
            socket.serverStopping(grace: grace)
        }
    }
}
