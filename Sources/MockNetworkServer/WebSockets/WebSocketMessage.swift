import Foundation

/// A WebSocket message, either way: text, or binary data.
///
/// A string literal is a text message: `await socket.send("hello")`, `replies: ["ping": ["pong"]]`.
public enum WebSocketMessage: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// A text message (its frames carry UTF-8).
    case text(String)
    /// A binary message.
    case data(Data)

    /// A text message.
    public init(stringLiteral value: String) {
        self = .text(value)
    }

    /// A text message of `value` encoded as JSON (sorted keys, so the text is the same every run).
    public static func json(_ value: some Encodable & Sendable) throws -> WebSocketMessage {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// The text of a text message; `nil` for binary.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The message's bytes: the UTF-8 of a text message, or the binary data.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .data(let data): data
        }
    }

    /// How many bytes ``data`` has, without making it.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .data(let data): data.count
        }
    }

    /// `"hello"` for text (shortened past 300 characters), `<12 bytes>` for binary.
    public var description: String {
        switch self {
        case .text(let text):
            let shown = text.count > 300 ? String(text.prefix(300)) + "…" : text
            return "\"\(shown)\""
        case .data(let data): return "<\(data.count) byte\(data.count == 1 ? "" : "s")>"
        }
    }
}

/// A WebSocket close code (RFC 6455, 7.4): one of the codes below by name, or an application's own
/// (3000–4999) by its number, as a server closes a socket for a reason of the app's:
///
/// ```swift
/// await socket.close(WebSocketCloseCode(rawValue: 4001), reason: "session expired")
/// ```
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code's number.
    public let rawValue: UInt16

    /// A code by its number (3000–4999 are for applications).
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: an endpoint is going away (a server stopping, a page left).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the other end broke the protocol.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot take.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1005: a close frame came with no code (never sent).
    public static let noStatus = WebSocketCloseCode(rawValue: 1005)
    /// 1006: the connection ended with no close frame (never sent).
    public static let abnormal = WebSocketCloseCode(rawValue: 1006)
    /// 1007: a message's data did not fit its type (a text message that is not UTF-8).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message too big to take.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met an error (a handler threw).
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a close frame may carry this code (RFC 6455, 7.4.1 and 7.4.2).
    var maySend: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    /// `1000 (normal)`.
    public var description: String {
        let names: [UInt16: String] = [
            1000: "normal", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
            1005: "no status", 1006: "abnormal", 1007: "invalid payload", 1008: "policy violation",
            1009: "message too big", 1010: "mandatory extension", 1011: "internal error",
        ]
        return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
