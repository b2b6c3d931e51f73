/// The grammar of a request's head (RFC 9112, 3 and 5): the request line, a field line, and what
/// the fields say about the body that follows. Each function reads one line already split off,
/// without its line ending.
enum RequestHeadGrammar {
    /// The three parts of a request line.
    struct RequestLine {
        var method: String
        var target: String
        var version: HTTPVersion
    }

    /// How the body after a head is framed.
    enum BodyFraming: Equatable {
        case none
        case length(Int)
        case chunked
    }

    static func requestLine(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> RequestLine {
        // method SP request-target SP HTTP-version, each space a single one.
        guard let firstSpace = line.firstIndex(of: space),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: space)
        else { throw .malformed("a request line needs a method, a target and a version") }
        let method = line[..<firstSpace]
        let target = line[(firstSpace + 1)..<secondSpace]
        let version = line[(secondSpace + 1)...]
        guard !method.isEmpty, method.allSatisfy(isTokenByte) else { throw .malformed("the method is no token") }
        guard !target.isEmpty, target.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .malformed("the request target is empty or holds spaces or bytes that are not visible ASCII")
        }
        return RequestLine(method: text(method), target: text(target), version: try httpVersion(version))
    }

    private static func httpVersion(_ bytes: ArraySlice<UInt8>) throws(RequestFailure) -> HTTPVersion {
        let digits = bytes.indices.lowerBound
        guard bytes.count == 8, bytes.prefix(5).elementsEqual("HTTP/".utf8), bytes[digits + 6] == UInt8(ascii: "."),
            isDigit(bytes[digits + 5]), isDigit(bytes[digits + 7])
        else { throw .malformed("the version is not HTTP/x.y") }
        let version = HTTPVersion(major: Int(bytes[digits + 5] - 0x30), minor: Int(bytes[digits + 7] - 0x30))
        guard version.major == 1 else {
            throw RequestFailure(status: 505, reason: "only HTTP/1.0 and HTTP/1.1 are served, not \(version)")
        }
        return version
    }

    static func field(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> HTTPHeaders.Field {
        guard let first = line.first, first != space, first != tab else {
            throw .malformed("a field line starts with whitespace (obsolete line folding)")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("a field line has no colon") }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(isTokenByte) else {
            throw .malformed("a field name is no token (whitespace before the colon?)")
        }
        var value = line[(colon + 1)...]
        // Slicing, not `removeFirst`: removing from a slice that shares its array copies it.
        while let byte = value.first, byte == space || byte == tab { value = value.dropFirst() }
        while let byte = value.last, byte == space || byte == tab { value = value.dropLast() }
        // Field values: visible ASCII, spaces, tabs and bytes above ASCII; no NUL, CR or other controls.
        guard value.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .malformed("a field value holds a control character")
        }
        return HTTPHeaders.Field(name: text(name), value: String(decoding: value, as: UTF8.self))
    }

    /// The framing the head's fields give its body, held to `maxBodyBytes`.
    static func framing(
        _ headers: HTTPHeaders, version: HTTPVersion, maxBodyBytes: Int
    ) throws(RequestFailure) -> BodyFraming {
        if version >= .http11, headers.count(of: "Host") != 1 {
            throw .malformed("an HTTP/1.1 request needs exactly one Host field")
        }
        let lengths = headers.contains("Content-Length") ? headers.values(for: "Content-Length") : []
        if headers.contains("Transfer-Encoding") {
            // RFC 9112 (6.1, 6.3): a transfer coding in HTTP/1.0 is a message a server must not guess
            // at. With both framings the chunks win and the length is ignored; the connection closes
            // after the answer (`keepsConnectionOpen`), so no byte after the chunks is read as a
            // request of its own (request smuggling). Linux's URLSession sends a body stream so.
            guard version >= .http11 else { throw .malformed("Transfer-Encoding in an HTTP/1.0 request") }
            let codings = headers.tokens(for: "Transfer-Encoding")
            guard codings.last == "chunked" else { throw .malformed("a request body whose last coding is not chunked") }
            guard codings.count == 1 else {
                throw RequestFailure(status: 501, reason: "transfer codings other than chunked are not served")
            }
            return .chunked
        }
        guard !lengths.isEmpty else { return .none }
        // Several equal values ("42, 42", or the field twice) are one length (RFC 9110, 8.6).
        var length: Int?
        for element in lengths.flatMap({ $0.split(separator: ",", omittingEmptySubsequences: false) }) {
            let digits = element.trimmingSpaces()
            guard !digits.isEmpty, digits.utf8.allSatisfy(isDigit) else {
                throw .malformed("Content-Length is not a number")
            }
            guard digits.utf8.count <= 18, let value = Int(digits) else {
                throw RequestFailure(status: 413, reason: "the body is larger than \(maxBodyBytes) bytes")
            }
            guard length == nil || length == value else { throw .malformed("Content-Length values differ") }
            length = value
        }
        guard let length, length > 0 else { return .none }
        guard length <= maxBodyBytes else {
            throw RequestFailure(status: 413, reason: "the body is larger than \(maxBodyBytes) bytes")
        }
        return .length(length)
    }

    /// Whether the head asks for `100 Continue` before its body; an expectation other than that fails.
    static func expectsContinue(_ headers: HTTPHeaders) throws(RequestFailure) -> Bool {
        guard headers.contains("Expect") else { return false }
        guard headers.tokens(for: "Expect") == ["100-continue"] else {
            throw RequestFailure(status: 417, reason: "the only expectation served is 100-continue")
        }
        return true
    }

    /// The size of a chunk from its line (`1a;name=value`): hexadecimal digits, then optional
    /// extensions, which are ignored.
    static func chunkSize(_ line: ArraySlice<UInt8>) throws(RequestFailure) -> Int {
        var size = 0
        var digits = 0
        var rest = line[...]
        while let byte = rest.first, let digit = hexValue(byte) {
            guard digits < 15 else { throw .malformed("a chunk size is too long") }
            size = size * 16 + digit
            digits += 1
            rest.removeFirst()
        }
        guard digits > 0 else { throw .malformed("a chunk size is not hexadecimal") }
        while let byte = rest.first, byte == space || byte == tab { rest.removeFirst() }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else {
            throw .malformed("a chunk size line is malformed")
        }
        guard rest.allSatisfy({ $0 == tab || ($0 >= 0x20 && $0 != 0x7F) }) else {
            throw .malformed("a chunk extension holds a control character")
        }
        return size
    }

    // MARK: Bytes

    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte - 0x30)
        case 0x41...0x46: Int(byte - 0x41 + 10)
        case 0x61...0x66: Int(byte - 0x61 + 10)
        default: nil
        }
    }

    /// tchar (RFC 9110, 5.6.2): letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var text = self
        while let character = text.first, character == " " || character == "\t" { text.removeFirst() }
        while let character = text.last, character == " " || character == "\t" { text.removeLast() }
        return text
    }
}
