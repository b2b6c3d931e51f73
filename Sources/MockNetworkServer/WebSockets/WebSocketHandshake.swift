import Foundation

/// The opening handshake (RFC 6455, 4.2): whether a request asks for a WebSocket, whether it asks
/// correctly, and the `101 Switching Protocols` that accepts it.
enum WebSocketHandshake {
    /// What the server makes of a request.
    enum Reading: Equatable {
        /// Not a WebSocket handshake: an ordinary request.
        case notWebSocket
        /// A handshake the server can accept: the client's key, and the subprotocols it offers in
        /// its order of preference.
        case valid(key: String, offered: [String])
        /// A handshake with something wrong: answered with this status, fields and text.
        case invalid(status: Int, headers: HTTPHeaders, reason: String)
    }

    /// Reads `request`: a request whose `Upgrade` names `websocket` is a handshake, and must be a
    /// `GET` of HTTP/1.1 with `Connection: Upgrade`, a key of 16 bytes in base64, and version 13.
    static func read(_ request: HTTPServerRequest) -> Reading {
        guard request.headers.tokens(for: "Upgrade").contains("websocket") else { return .notWebSocket }
        func invalid(_ reason: String, status: Int = 400, headers: HTTPHeaders = [:]) -> Reading {
            .invalid(
                status: status, headers: headers, reason: "MockServer: not a valid WebSocket handshake: \(reason).")
        }
        guard request.method == "GET" else { return invalid("the method is \(request.method), not GET") }
        guard request.version >= .http11 else { return invalid("it is \(request.version), not HTTP/1.1") }
        guard request.headers.tokens(for: "Connection").contains("upgrade") else {
            return invalid("Connection does not name Upgrade")
        }
        guard request.headers.values(for: "Sec-WebSocket-Version").map(Self.trimmed) == ["13"] else {
            return invalid(
                "Sec-WebSocket-Version is \(request.headers["Sec-WebSocket-Version"] ?? "missing"), not 13",
                status: 426, headers: ["Sec-WebSocket-Version": "13"])
        }
        guard let key = request.headers["Sec-WebSocket-Key"].map(Self.trimmed),
            Data(base64Encoded: key)?.count == 16
        else {
            return invalid("Sec-WebSocket-Key is not 16 bytes in base64")
        }
        let offered = request.headers.values(for: "Sec-WebSocket-Protocol")
            .flatMap { $0.split(separator: ",") }
            .map { Self.trimmed(String($0)) }
            .filter { !$0.isEmpty }
        return .valid(key: key, offered: offered)
    }

    /// `Sec-WebSocket-Accept` for `key`: the base64 of the SHA-1 of the key and RFC 6455's GUID.
    static func accept(_ key: String) -> String {
        Data(SHA1.digest(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8))).base64EncodedString()
    }

    /// The `101` head that accepts `key`, naming `subprotocol` when one was chosen.
    static func switchingHead(key: String, subprotocol: String?) -> [UInt8] {
        var head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Accept: \(accept(key))\r\n"
        if let subprotocol { head += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// The subprotocol to choose: the first the client offers that the handler speaks.
    static func choose(offered: [String], speaks: [String]) -> String? {
        offered.first { speaks.contains($0) }
    }

    private static func trimmed(_ text: String) -> String {
        text.trimmingCharacters(in: .whitespaces)
    }
}
