import Foundation
import MockNetworkServer

/// A WebSocket client on ``RawHTTPClient``'s bare socket, for what no real client sends: frames
/// unmasked, fragmented, oversized, with reserved bits, bad UTF-8, or cut short. Bounded as that
/// client is (every read waits at most its timeout), on 127.0.0.1 only.
final class RawWebSocketClient: Sendable {
    let http: RawHTTPClient

    /// A frame as read off the socket.
    struct Frame: Equatable {
        var fin: Bool
        var opcode: UInt8
        var payload: [UInt8]
        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        var closeCode: UInt16? {
            opcode == 0x8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    /// Connects and sends the handshake for `path`; `status` is the answer's.
    init(
        port: Int, path: String = "/", host: String? = nil, protocols: [String] = [], fields: [String: String] = [:],
        timeout: TimeInterval = 5
    ) throws {
        http = try RawHTTPClient(port: port, timeout: timeout)
        var head = "GET \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nUpgrade: websocket\r\n"
        head += "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { head += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        _ = http.send(head)
    }

    /// Reads the handshake's answer head.
    func readHandshake() throws -> (status: Int, reason: String, headers: HTTPHeaders) {
        try http.readHead()
    }

    /// The bytes of a client frame: masked (unless `masked` is false) with a fixed key.
    static func frame(
        opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, reserved: UInt8 = 0
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (reserved << 4) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count <= 125 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += key
        for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index % 4]) }
        return bytes
    }

    /// Sends a frame; false when the socket would not take it.
    @discardableResult
    func send(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, reserved: UInt8 = 0) -> Bool {
        http.send(Self.frame(opcode: opcode, payload, fin: fin, masked: masked, reserved: reserved))
    }

    /// Sends a text message in one frame.
    @discardableResult
    func sendText(_ text: String) -> Bool { send(opcode: 0x1, Array(text.utf8)) }

    /// Sends a close frame with `code` (none when `nil`).
    @discardableResult
    func sendClose(_ code: UInt16?, reason: String = "") -> Bool {
        let payload = code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] + Array(reason.utf8) } ?? []
        return send(opcode: 0x8, payload)
    }

    /// Reads the next frame the server sends.
    func readFrame() throws -> Frame {
        let head = try http.readExactly(2)
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let more = try http.readExactly(2)
            length = Int(more[0]) << 8 | Int(more[1])
        } else if length == 127 {
            length = try http.readExactly(8).reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = length == 0 ? [] : try http.readExactly(length)
        return Frame(fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, payload: payload)
    }

    /// Whether the server closed the connection (an end of stream within the timeout).
    func waitForClose() -> Bool { http.waitForClose() }

    func close() { http.close() }
}
