import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An origin a server answers as: a scheme, a host and a port, and the `Host` values that name it.
struct ServedOrigin: Sendable {
    let url: URL
    /// `scheme://host[:port]`, which a request target is appended to.
    let prefix: String
    /// The `Host` field values that name this origin, lowercased: the host with its port, and the
    /// host alone when the port is the scheme's default.
    let hostValues: Set<String>

    init?(_ text: String) {
        guard let components = URLText.components(text), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil,
            components.fragment == nil, components.user == nil
        else { return nil }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = components.port ?? defaultPort
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var prefix = "\(scheme)://\(shownHost)"
        if let port, port != defaultPort { prefix += ":\(port)" }
        guard let url = URLText.url(prefix) else { return nil }
        self.url = url
        self.prefix = prefix
        var values: Set<String> = []
        if let port { values.insert("\(shownHost):\(port)") }
        if port == nil || port == defaultPort { values.insert(shownHost) }
        hostValues = values
    }
}

/// Answers a server's requests with a registry: rebuilds the `URLRequest` the handlers see, and
/// writes what the registry answers.
final class RegistryResponder: HTTPResponder {
    let registry: MockRegistry
    private let origins: [ServedOrigin]
    /// What an app's forwarded requests carry (``ForwardedRequest``).
    private let secret: String
    /// The server's own origin, for requests when no origin is given (known once it listens).
    private let ownOrigin = Locked<ServedOrigin?>(nil)
    /// The targets of redirects to an origin other than the first, moved to the server's own address,
    /// oldest first: a client that follows one sends `Host` the server's address, which alone names
    /// the first origin, so the target (path and query) says which origin it meant. Used once each.
    private let redirectedTargets = Locked<[(target: String, origin: ServedOrigin)]>([])
    /// The requests being answered, by a number of the responder's, to cut short when it stops.
    private let open = Locked<(next: Int, exchanges: [Int: ServedExchange])>((0, [:]))

    /// What the server takes from its clients (the WebSockets' limits).
    let limits: HTTPServerLimits
    /// The WebSockets open on this server, each counted and booked before its `101` is written, and
    /// whether the server stopped (it takes no more).
    let sockets = Locked<(open: [ObjectIdentifier: MockWebSocket], stopped: Bool)>(([:], false))

    init(registry: MockRegistry, origins: [ServedOrigin], secret: String, limits: HTTPServerLimits) {
        self.registry = registry
        self.origins = origins
        self.secret = secret
        self.limits = limits
    }

    func setOwnOrigin(_ origin: ServedOrigin) {
        ownOrigin.withLock { $0 = origin }
    }

    /// Header fields that belong to the connection, not to the request a handler sees.
    static let connectionFields: Set<String> = [
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "content-length", "expect",
        "te", "trailer", "upgrade",
    ]

    func respond(to request: HTTPServerRequest, writer: HTTPResponseWriter) {
        let forwarded: ForwardedRequest?
        switch ForwardedRequest.read(request, secret: secret) {
        case .plain:
            forwarded = nil
        case .forwarded(let found):
            forwarded = found
        case .refused(let reason):
            // Not the launched app's: no handler runs, and the test fails saying why.
            registry.recordServedFailure(reason)
            var fields = Self.textFields
            fields.add(ForwardingFields.failure, "refused")
            writer.respond(status: 403, headers: fields, body: Data((reason + "\n").utf8))
            return
        }
        let handshake = WebSocketHandshake.read(request)
        if case .invalid(let status, var fields, let reason) = handshake {
            fields.add("Content-Type", "text/plain; charset=utf-8")
            writer.respond(status: status, headers: fields, body: Data((reason + "\n").utf8))
            return
        }
        if case .valid = handshake, let refusal = socketRefusal() {
            writer.respond(status: 503, headers: Self.textFields, body: Data((refusal + "\n").utf8))
            return
        }
        let webSocket = if case .valid = handshake { true } else { false }
        guard
            var handlersRequest = forwarded?.urlRequest(for: request)
                ?? urlRequest(for: request, webSocket: webSocket)
        else {
            writer.respond(
                status: 400, headers: ["Content-Type": "text/plain; charset=utf-8"],
                body: Data("MockServer: the request target \(request.target) makes no URL.\n".utf8))
            return
        }
        if webSocket, forwarded != nil {
            // The app's socket client adds the handshake's fields itself: its handlers see them.
            for name in ["Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol"] {
                if let value = request.headers.combined(name) {
                    handlersRequest.setValue(value, forHTTPHeaderField: name)
                }
            }
        }
        let urlRequest = handlersRequest
        let headSent = Locked(false)
        let switched = Locked(false)
        let key = open.withLock { open in
            open.next += 1
            return open.next
        }
        let exchange = registry.answerServed(
            urlRequest, body: request.body, forwarded: forwarded != nil,
            isOwnAddress: { [weak self] in self?.isOwnAddress($0) ?? false },
            client: { Self.client(of: writer) },
            opened: { exchange in open.withLock { $0.exchanges[key] = exchange } }
        ) { [weak self] event in
            guard let self else { return }
            switch event {
            case .end, .unmatched, .failed: forget(key)
            case .head, .piece: break
            }
            if case .valid(let clientKey, let offered) = handshake, case .head(_, let fields, _) = event,
                let handshake = fields.first(where: { HTTPHeaders.sameName($0.name, WebSocketBook.routeField) })?.value
            {
                switched.withLock { $0 = true }
                return accept(urlRequest, key: clientKey, offered: offered, handshake: handshake, writer: writer)
            }
            // A socket's handshake, answered: its exchange's end is not the connection's.
            if switched.withLock({ $0 }) { return }
            switch event {
            case .head(let status, let fields, let length):
                headSent.withLock { $0 = true }
                var fields = fields
                if forwarded == nil, (300..<400).contains(status) { fields = self.servedLocations(fields) }
                writer.begin(status: status, headers: HTTPHeaders(fields.map { ($0.name, $0.value) }), length: length)
            case .piece(let data):
                writer.write(data)
            case .end:
                writer.end()
            case .unmatched(let report):
                var fields = Self.textFields
                if forwarded != nil { fields.add(ForwardingFields.failure, "unmatched") }
                writer.respond(status: 404, headers: fields, body: Data((report + "\n").utf8))
            case .failed(let error):
                if forwarded != nil, !headSent.withLock({ $0 }) {
                    // The app fails with this error, as its request would in a unit test.
                    let error = error as NSError
                    var fields = Self.textFields
                    fields.add(ForwardingFields.failure, "error \(error.domain) \(error.code)")
                    let text = error.localizedDescription
                    writer.respond(status: 502, headers: fields, body: Data((text + "\n").utf8))
                } else if !headSent.withLock({ $0 }), let error = error as? MockNetworkError {
                    writer.respond(status: 500, headers: Self.textFields, body: Data((error.description + "\n").utf8))
                } else {
                    writer.abort()
                }
            }
        }
        writer.onClose { [weak self] in
            exchange.connectionClosed(cutShort: writer.progress == .cutShort)
            self?.forget(key)
        }
    }

    /// Where the client of the answer `writer` writes stands now, as the registry asks it.
    private static func client(of writer: HTTPResponseWriter) -> ServedClient {
        switch writer.progress {
        case .writing, .cutShort: .waiting
        case .sent: .hasAll
        case .clientLeft: .left
        }
    }

    private func forget(_ key: Int) {
        _ = open.withLock { $0.exchanges.removeValue(forKey: key) }
    }

    /// Ends the answers in progress: the server stops. Those whose clients are still there are
    /// judged when their connections close (``ServedExchange/connectionClosed(cutShort:)``).
    func stopServing() {
        let exchanges = open.withLock { open in
            defer { open.exchanges.removeAll() }
            return Array(open.exchanges.values)
        }
        for exchange in exchanges { exchange.stopServing() }
    }

    /// Whether `url` is this server's own address, where a request it let through would come back.
    private func isOwnAddress(_ url: URL) -> Bool {
        guard let own = ownOrigin.withLock({ $0 })?.url, let host = url.host?.lowercased() else { return false }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return ["127.0.0.1", "localhost"].contains(host) && port == own.port
    }

    static let textFields: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]

    /// A redirect's `Location` on an origin the server answers as, moved to the server itself: a
    /// client that follows it comes back here, to the same handlers, instead of going to the real
    /// service. Other locations (relative ones, other hosts) go out as they are. An app's forwarded
    /// request keeps its `Location`: the app follows it through its own registry.
    private func servedLocations(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard let own = ownOrigin.withLock({ $0 }) else { return fields }
        return fields.map { field in
            guard field.name.lowercased() == "location" else { return field }
            let lowered = field.value.lowercased()
            for origin in origins {
                let prefix = origin.prefix.lowercased()
                guard lowered.hasPrefix(prefix) else { continue }
                let rest = field.value.dropFirst(prefix.count)
                guard rest.isEmpty || rest.first == "/" || rest.first == "?" || rest.first == "#" else { continue }
                if origin.prefix != origins.first?.prefix {
                    let target = Self.pathAndQuery(of: own.prefix + rest.prefix { $0 != "#" })
                    redirectedTargets.withLock { targets in
                        if targets.count >= 64 { targets.removeFirst() }
                        targets.append((target.isEmpty ? "/" : target, origin))
                    }
                }
                return (field.name, own.prefix + rest)
            }
            return field
        }
    }

    /// The request as the handlers see it: its URL on the origin it was sent to, its method, its
    /// fields but the connection's, and its body. A WebSocket's handshake has the origin's scheme
    /// for sockets (`wss` for `https`, `ws` for `http`), an ordinary request the one for HTTP.
    func urlRequest(for request: HTTPServerRequest, webSocket: Bool = false) -> URLRequest? {
        let host = request.headers["Host"]?.lowercased()
        guard
            let origin = origins.first(where: { host.map($0.hostValues.contains) ?? false })
                ?? redirectedOrigin(of: request.target) ?? origins.first ?? ownOrigin.withLock({ $0 }),
            let url = URLText.url(
                Self.prefix(origin.prefix, webSocket: webSocket) + Self.pathAndQuery(of: request.target))
        else { return nil }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for field in request.headers where !Self.connectionFields.contains(field.name.lowercased()) {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        return urlRequest
    }

    /// The origin a redirect this server moved to its own address meant for `target`, taken once.
    private func redirectedOrigin(of target: String) -> ServedOrigin? {
        let target = Self.pathAndQuery(of: target)
        return redirectedTargets.withLock { targets in
            guard let index = targets.firstIndex(where: { $0.target == target }) else { return nil }
            return targets.remove(at: index).origin
        }
    }

    /// The path and query of a request target: as it is in origin form (`/users?page=2`), from the
    /// path on in absolute form (`http://host/users`), and nothing for `*` (`OPTIONS *`).
    static func pathAndQuery(of target: String) -> String {
        if target.hasPrefix("/") { return target }
        guard let scheme = target.range(of: "://") else { return "" }
        let rest = target[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
    }
}
