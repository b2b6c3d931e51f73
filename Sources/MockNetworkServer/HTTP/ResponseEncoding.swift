import Foundation
import MockNetwork

/// The bytes of a response: the status line, the fields, and the framing of the body.
///
/// The server owns the framing: fields named `Content-Length`, `Transfer-Encoding`, `Connection` and
/// `Keep-Alive` a responder gives are replaced by the ones that describe what is really sent, and a
/// field whose name is no token, or whose value holds a line break, is dropped, so no answer can
/// split the stream into two.
enum ResponseEncoding {
    /// How the body after a head is delimited.
    enum Framing: Equatable {
        /// `Content-Length` with this many bytes.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
        /// Neither: the body ends when the connection closes (a body over time to an HTTP/1.0 client).
        case untilClose
        /// No body and no length: statuses 1xx, 204 and 304.
        case bodiless
    }

    /// The connection field the head carries.
    enum ConnectionField {
        case none
        case close
        case keepAlive
    }

    /// Whether a response with `status` to a request with `method` carries a body (RFC 9110, 6.4.1).
    static func allowsBody(status: Int, method: String) -> Bool {
        method != "HEAD" && status >= 200 && status != 204 && status != 304
    }

    /// Whether `status` may have a length field at all (1xx and 204 must not).
    static func allowsLength(status: Int) -> Bool {
        status >= 200 && status != 204 && status != 304
    }

    static func head(
        status: Int, headers: HTTPHeaders, framing: Framing, connection: ConnectionField
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        appendHead(to: &bytes, status: status, headers: headers, framing: framing, connection: connection)
        return bytes
    }

    /// Appends a head's bytes to `bytes`, written straight from the fields' UTF-8 (no text is built).
    static func appendHead(
        to bytes: inout [UInt8], status: Int, headers: HTTPHeaders, framing: Framing, connection: ConnectionField
    ) {
        bytes.reserveCapacity(bytes.count + 128)
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &bytes)
        bytes.append(space)
        bytes.append(contentsOf: ReasonPhrases.phrase(for: status).utf8)
        bytes.append(contentsOf: crlf)
        for field in headers where isSendable(field) && !isFraming(field.name) {
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: field.value.utf8)
            bytes.append(contentsOf: crlf)
        }
        switch framing {
        case .length(let count):
            bytes.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(count, to: &bytes)
            bytes.append(contentsOf: crlf)
        case .chunked: bytes.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        case .untilClose, .bodiless: break
        }
        switch connection {
        case .none: break
        case .close: bytes.append(contentsOf: "Connection: close\r\n".utf8)
        case .keepAlive: bytes.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        bytes.append(contentsOf: crlf)
    }

    /// Appends the decimal digits of `value` (a negative one as 0).
    private static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        var rest = max(value, 0)
        var divisor = 1
        while divisor <= rest / 10 { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: rest / divisor) + 0x30)
            rest %= divisor
            divisor /= 10
        }
    }

    private static let space = UInt8(ascii: " ")

    /// The interim answer to `Expect: 100-continue`.
    static let continueHead = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Appends the head of one chunk of `count` bytes (its size in hexadecimal; its data and a CRLF follow).
    static func appendChunkHead(_ count: Int, to bytes: inout [UInt8]) {
        var shift = 60
        while shift > 0, (count >> shift) & 0xF == 0 { shift -= 4 }
        while shift >= 0 {
            let digit = UInt8(truncatingIfNeeded: (count >> shift) & 0xF)
            bytes.append(digit < 10 ? 0x30 + digit : 0x61 + digit - 10)
            shift -= 4
        }
        bytes.append(contentsOf: crlf)
    }

    static let crlf: [UInt8] = [0x0D, 0x0A]

    /// The last chunk, with no trailer fields.
    static let lastChunk = Array("0\r\n\r\n".utf8)

    /// A whole answer for a request that failed, closing the connection.
    static func failure(_ failure: RequestFailure) -> [UInt8] {
        let body = Array((failure.reason + "\n").utf8)
        let headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        return head(status: failure.status, headers: headers, framing: .length(body.count), connection: .close) + body
    }

    /// `Content-Length`, `Transfer-Encoding`, `Connection` or `Keep-Alive`, in any case.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: HTTPHeaders.sameName(name, "Connection") || HTTPHeaders.sameName(name, "Keep-Alive")
        case 14: HTTPHeaders.sameName(name, "Content-Length")
        case 17: HTTPHeaders.sameName(name, "Transfer-Encoding")
        default: false
        }
    }

    private static func isSendable(_ field: HTTPHeaders.Field) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(RequestHeadGrammar.isTokenByte)
            && field.value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
