import Foundation

/// A request the server read completely: its head, its whole body, and who sent it.
package struct HTTPServerRequest: Sendable {
    /// The method as sent, such as `GET` (methods are case-sensitive).
    package var method: String
    /// The request target exactly as sent on the request line, such as `/users?page=2`.
    package var target: String
    /// The protocol version of the request line.
    package var version: HTTPVersion
    /// The header fields, in order.
    package var headers: HTTPHeaders
    /// The body, decoded from its chunks when it came chunked; empty when there was none.
    package var body: Data
    /// The address and port the request came from.
    package var peer: HTTPPeer

    /// A request with the given parts.
    package init(
        method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
        body: Data = Data(), peer: HTTPPeer
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// Whether the connection stays open after the answer, as the request asks: HTTP/1.1 unless it
    /// says `Connection: close`, HTTP/1.0 only when it says `Connection: keep-alive`; never after a
    /// request framed both by `Transfer-Encoding` and `Content-Length` (RFC 9112, 6.3).
    package var keepsConnectionOpen: Bool {
        if headers.contains("Transfer-Encoding"), headers.contains("Content-Length") { return false }
        guard headers.contains("Connection") else { return version >= .http11 }
        let tokens = headers.tokens(for: "Connection")
        if tokens.contains("close") { return false }
        return version >= .http11 || tokens.contains("keep-alive")
    }
}

/// An HTTP protocol version, such as 1.1.
package struct HTTPVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version.
    package var major: Int
    /// The minor version.
    package var minor: Int

    /// HTTP/1.0.
    package static let http10 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    package static let http11 = HTTPVersion(major: 1, minor: 1)

    /// The given version.
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.1`, as on a request line.
    package var description: String { "HTTP/\(major).\(minor)" }

    /// Whether `lhs` is an earlier version than `rhs`.
    package static func < (lhs: HTTPVersion, rhs: HTTPVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}

/// The other end of a connection: an IPv4 address (always 127.0.0.1 here) and a port.
package struct HTTPPeer: Sendable, Hashable, CustomStringConvertible {
    /// The address in dotted form.
    package var host: String
    /// The port.
    package var port: Int

    /// The given address and port.
    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:54321`.
    package var description: String { "\(host):\(port)" }
}
