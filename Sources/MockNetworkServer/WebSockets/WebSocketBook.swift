import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One socket registration: what answers the sockets it matches, and where it was registered.
final class SocketRoute: Sendable {
    /// What answers a socket.
    enum Body: Sendable {
        /// A handler that gets the socket; it closes when the handler returns.
        case handler(@Sendable (MockWebSocket) async throws -> Void)
        /// Messages on opening, and replies to each message the client sends.
        case script(Script)
        /// Nothing: the test takes the socket with `nextWebSocket` and drives it.
        case test
    }

    /// A scripted socket's messages.
    struct Script: Sendable {
        let onOpen: [WebSocketMessage]
        let replies: [WebSocketMessage: [WebSocketMessage]]
    }

    let body: Body
    let subprotocols: [String]
    let location: SourceLocation
    /// The registry, held weakly (it holds the route): failures go to it while it lives.
    private let registry: Locked<WeakRegistry>

    /// A reference to a registry that does not keep it alive.
    struct WeakRegistry {
        weak var value: MockRegistry?
    }

    init(body: Body, subprotocols: [String], location: SourceLocation, registry: MockRegistry) {
        self.body = body
        self.subprotocols = subprotocols
        self.location = location
        self.registry = Locked(WeakRegistry(value: registry))
    }

    /// An error as a failure shows it: a MockNetwork error's text, else the error as Swift prints it.
    static func describe(_ error: any Error) -> String {
        (error as? any MockInputError)?.description ?? String(describing: error)
    }

    var script: Script? {
        if case .script(let script) = body { return script }
        return nil
    }

    /// Fails the registry's test at the registration, with `message` after "MockNetwork: ".
    func fail(_ message: String) {
        registry.withLock { $0.value }?.record(MockFailure(message: "MockNetwork: " + message, location: location))
    }

    /// Starts answering `socket`: its handler in a task where the registry's handlers run (cancelled
    /// when the socket closes), its script's first messages, or nothing for the test to drive.
    func start(_ socket: MockWebSocket, registry: MockRegistry) {
        switch body {
        case .handler(let handler):
            let work: @Sendable () async -> Void = { [self] in
                do {
                    try await handler(socket)
                    await socket.close(.normal)
                } catch {
                    let closedFirst = error is CancellationError || error is WebSocketError
                    if closedFirst, !socket.isOpen { return }
                    fail(
                        "the WebSocket handler for \(socket.url.absoluteString) threw \(Self.describe(error)). "
                            + "The server closed the socket with \(WebSocketCloseCode.internalError).")
                    await socket.close(.internalError, reason: "the handler failed")
                }
            }
            let session = socket.session
            registry.runHandlerTask(work) { task in session.onEnd { task.cancel() } }
        case .script(let script):
            // On the connection's queue, before any message is read: "ready" goes before any reply.
            for message in script.onOpen { socket.sendAtOnce(message) }
        case .test:
            break
        }
    }
}

/// A registry's WebSockets (kept as its setting): the registrations by number, the sockets opened
/// in order, and the client's messages for the test to await.
final class WebSocketBook: SwitchedExchanges, StopsWithTest {
    private let routes = Locked<[Int: SocketRoute]>([:])
    private let all = Locked<[MockWebSocket]>([])
    /// The sockets `nextWebSocket` has not returned yet.
    let opened = AsyncQueue<MockWebSocket>()
    /// The client messages `nextWebSocketMessage` has not returned yet (the latest 10,000, and of them
    /// the latest 4 MiB, though always the latest message).
    let messages = AsyncQueue<(socket: MockWebSocket, number: Int, message: WebSocketMessage)>(
        limit: 10_000, byteLimit: 4 << 20, weight: { $0.message.byteCount })
    /// Serializes the making of books (a `Locked` of some size: see its note on empty values).
    private static let making = Locked(0)

    /// `registry`'s book, made on first use.
    static func of(_ registry: MockRegistry) -> WebSocketBook {
        making.withLock { _ in
            if let book = registry.setting(WebSocketBook.self) { return book }
            let book = WebSocketBook()
            registry.set(book)
            registry.switchedExchanges = book
            return book
        }
    }

    /// `registry`'s book, if a socket was registered on it.
    static func existing(_ registry: MockRegistry) -> WebSocketBook? {
        registry.setting(WebSocketBook.self)
    }

    /// Keeps `route` under a number of its own, which its handshake's answer carries.
    func add(_ route: SocketRoute) -> Int {
        routes.withLock { routes in
            let number = routes.count + 1
            routes[number] = route
            return number
        }
    }

    private let handshakes = Locked(0)

    /// A new handshake's id: the number of the registration that answers it, a dot, and its own.
    func handshakeID(route: Int) -> String {
        let number = handshakes.withLock { count in
            count += 1
            return count
        }
        return "\(route).\(number)"
    }

    /// The registration an id from ``handshakeID(route:)`` names.
    static func routeNumber(of id: String) -> Int? {
        Int(id.prefix { $0 != "." })
    }

    var field: String { Self.routeField }

    func messages(of id: String) -> [SwitchedMessage]? {
        sockets.first { $0.handshakeID == id }?.switchedMessages
    }

    /// The registration numbered `number`.
    func route(_ number: Int) -> SocketRoute? {
        routes.withLock { $0[number] }
    }

    /// Every socket opened on the registry, in order.
    var sockets: [MockWebSocket] { all.withLock { $0 } }

    func socketOpened(_ socket: MockWebSocket, on registry: MockRegistry) {
        // Asked at the end of the test that owns the registry (again after each test, as a registry
        // may serve several in turn), before a test that awaits the socket can end. Booked before the
        // `101` is written: a test's end or a stop that comes after it sees the socket.
        registry.stopWithTest(self)
        all.withLock { $0.append(socket) }
    }

    /// `socket`'s connection switched (its `101` is on its way): the test may take it and send.
    func socketSwitched(_ socket: MockWebSocket) {
        opened.append(socket)
    }

    // MARK: The end of the test

    /// Nothing to stop: each server closes its own sockets.
    func stop() {}

    /// Sockets left open: each whose connection has not closed gets ``MockServer/socketGrace`` to
    /// close (its client's close on its way), then one still open fails the test at its
    /// registration (recorded in the registry, so nothing is returned), and so do the client's
    /// messages nothing read on the sockets that closed. Blocks the calling thread.
    func failuresAtEndOfTest() -> [MockFailure] {
        let open = sockets.filter { !$0.hasEnded }
        let deadline = DispatchTime.now() + MockServer.socketGrace
        for socket in open { socket.session.waitForEnd(until: deadline) }
        for socket in open where socket.isOpen { socket.reportOpen() }
        reportUnread()
        return []
    }

    /// The client's messages nothing read, on each socket that has closed.
    func reportUnread() {
        for socket in sockets { socket.reportUnread() }
    }

    /// As ``failuresAtEndOfTest()``, holding no thread.
    func awaitFailuresAtEndOfTest() async -> [MockFailure] {
        let open = sockets.filter { !$0.hasEnded }
        let deadline = DispatchTime.now() + MockServer.socketGrace
        for socket in open { await socket.session.awaitEnd(until: deadline) }
        for socket in open where socket.isOpen { socket.reportOpen() }
        reportUnread()
        return []
    }

    func unmatchedExample(for request: URLRequest, shown url: String) -> String? {
        guard request.value(forHTTPHeaderField: "Sec-WebSocket-Key") != nil else { return nil }
        return "webSocket(\"\(url)\") { socket in for try await message in socket.messages { … } }"
    }

    func clientSent(_ message: WebSocketMessage, number: Int, on socket: MockWebSocket) {
        messages.append((socket, number, message))
    }

    /// The header field a socket handler's answer names its registration with, for the server to
    /// switch protocols instead of sending it.
    static let routeField = "MockNetwork-WebSocket-Route"
}
