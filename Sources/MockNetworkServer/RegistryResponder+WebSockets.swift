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
        let registry = registry
        session.onSwitch.withLock {
            $0 = { [weak self] in
                self?.sockets.withLock { $0[id] = socket }
                book.socketOpened(socket)
                route.start(socket, registry: registry)
            }
        }
        session.onEnd { [weak self] in _ = self?.sockets.withLock { $0.removeValue(forKey: id) } }
        writer.switchProtocols(head: WebSocketHandshake.switchingHead(key: key, subprotocol: subprotocol), to: session)
    }

    /// Why a handshake is refused before any handler sees it: the server has as many sockets open
    /// as its limits take.
    func socketRefusal() -> String? {
        let open = sockets.withLock { $0.count }
        guard open >= limits.maxWebSockets else { return nil }
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

    /// Closes every socket open with 1001 (going away): the server stops.
    func closeSockets() {
        for socket in sockets.withLock({ Array($0.values) }) {
            socket.serverStopping()
        }
    }

    /// Sockets still open (no close begun by either end) after waiting up to `grace` seconds for them
    /// to close, as failures of the test at their registrations; holds no thread.
    func awaitOpenSocketFailures(grace: TimeInterval) async -> [MockFailure] {
        let open = sockets.withLock { Array($0.values) }
        guard !open.isEmpty else { return [] }
        let deadline = DispatchTime.now() + grace
        for socket in open {
            await socket.session.awaitEnd(until: deadline)
        }
        return Self.stillOpen(open)
    }

    /// As ``awaitOpenSocketFailures(grace:)``, blocking the calling thread while it waits.
    func openSocketFailures(grace: TimeInterval) -> [MockFailure] {
        let open = sockets.withLock { Array($0.values) }
        guard !open.isEmpty else { return [] }
        let deadline = DispatchTime.now() + grace
        for socket in open {
            socket.session.waitForEnd(until: deadline)
        }
        return Self.stillOpen(open)
    }

    private static func stillOpen(_ sockets: [MockWebSocket]) -> [MockFailure] {
        sockets.filter(\.isOpen).map { socket in
            MockFailure(
                message: "MockNetwork: the WebSocket to \(socket.url.absoluteString) was still open when the test "
                    + "ended. Close it before the test returns: in the client (URLSessionWebSocketTask's "
                    + "cancel(with:reason:)), or on the server (return from the handler, or socket.close()).",
                location: socket.route.location)
        }
    }
}
