import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request a registry answered (or failed), as the handler saw it.
public struct RecordedRequest: Sendable, Equatable {
    /// The body bytes, however the client sent them (`httpBody`, a body stream, or an upload task);
    /// empty when there was none.
    public let body: Data
    /// The request itself, with `httpBody` set to ``body``.
    public let request: URLRequest

    // Method, URL and headers are read from `request` when asked for, not when every request is
    // logged: on Linux, `allHTTPHeaderFields` builds a new dictionary each time.

    /// The HTTP method, `GET` when the request named none (or an empty one).
    public var method: String { Self.method(of: request) }
    /// The requested URL.
    public var url: URL { request.url ?? URL(fileURLWithPath: "/") }
    /// The header fields the request carried into the protocol.
    public var headers: [String: String] { request.allHTTPHeaderFields ?? [:] }

    /// When the request arrived.
    package let started: Date
    /// What it was answered with, once it was (for ``MockRegistry/exportedArchive(redaction:)``).
    package var outcome: Outcome?

    /// What a request got.
    package enum Outcome: Sendable {
        /// A response and its body, after `delay` seconds.
        case response(HTTPURLResponse, Data, delay: TimeInterval)
        /// No response: the request failed with this error.
        case failure(String)
    }

    init(_ request: URLRequest, body: Data) {
        self.body = body
        self.request = request
        self.started = Date()
    }

    /// Two recorded requests are equal when their requests and bodies are.
    public static func == (a: RecordedRequest, b: RecordedRequest) -> Bool {
        a.body == b.body && a.request == b.request
    }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The body as a JSON value, compared as JSON means it (numbers by value, objects whatever the
    /// order of their keys), or `nil` when it is not JSON: `#expect(sent.bodyJSON == ["event": "open"])`.
    public var bodyJSON: JSONValue? { try? JSONValue(json: body) }

    /// The value of a header field, its name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// This request as a `curl` command line, to replay it against a real server while debugging.
    ///
    /// The method comes with `-X` unless it is `GET`; each header with `-H`, sorted by name
    /// (case-insensitively); the body with `--data-binary`; the URL last. Arguments are
    /// single-quoted for a POSIX shell (a `'` inside becomes `'\''`). A body that is not UTF-8 text
    /// is written as `$'…'` with `\xNN` escapes, which bash and zsh read (a NUL byte still ends the
    /// argument there: no command line can carry one).
    ///
    /// ```
    /// curl -X POST -H 'Content-Type: application/json' --data-binary '{"name":"Rex"}' 'https://api.example.com/dogs'
    /// ```
    public var curlCommand: String {
        var words = ["curl"]
        if method != "GET" { words += ["-X", Self.shellWord(method)] }
        let sorted = headers.sorted { ($0.key.lowercased(), $0.key) < ($1.key.lowercased(), $1.key) }
        for (name, value) in sorted { words += ["-H", Self.shellQuoted("\(name): \(value)")] }
        if !body.isEmpty { words += ["--data-binary", Self.shellQuoted(body)] }
        words.append(Self.shellQuoted(url.absoluteString))
        return words.joined(separator: " ")
    }

    /// `text` as it is when the shell would read it as one word unchanged, else single-quoted.
    private static func shellWord(_ text: String) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy(safe.contains)
        return plain ? text : shellQuoted(text)
    }

    /// `text` in single quotes, each `'` in it closed, escaped and reopened.
    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// UTF-8 text without NUL in single quotes; other bytes in `$'…'` with `\xNN` escapes.
    private static func shellQuoted(_ data: Data) -> String {
        if !data.contains(0), let text = String(data: data, encoding: .utf8) { return shellQuoted(text) }
        var out = "$'"
        for byte in data {
            switch byte {
            case UInt8(ascii: "'"): out += #"\'"#
            case UInt8(ascii: "\\"): out += #"\\"#
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                out += #"\x"# + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out + "'"
    }
}

/// Where a test or a registration is in the source, for failures that point at it.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    /// The file ID (`Module/File.swift`), as `#fileID` gives it.
    public var fileID: String
    /// The file path, as `#filePath` gives it.
    public var filePath: String
    /// The line number.
    public var line: Int
    /// The column number.
    public var column: Int

    /// A location; the defaults are the caller's own.
    public init(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) {
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.column = column
    }

    /// `File.swift:line`, as in a compiler's messages.
    public var description: String { "\(fileID):\(line)" }
}

/// A problem a registry noticed while answering requests, kept until the test reports it.
public struct MockFailure: Sendable, Equatable, CustomStringConvertible {
    /// What happened, then how to fix it.
    public let message: String
    /// The registration the failure belongs to, when there is one.
    public let location: SourceLocation?

    package init(message: String, location: SourceLocation?) {
        self.message = message
        self.location = location
    }

    /// The ``message``.
    public var description: String { message }

    /// How the error a client gets for a request whose failure the test reports ends: the
    /// report has it all.
    package static let reportedNote = "; the test's failure says why and how to fix it)."

    /// Whether `error` is the error a client got for a request whose failure the registry recorded
    /// for the test (an unmatched request): a test that throws it fails for that failure, once.
    package static func isReported(_ error: any Error) -> Bool {
        guard let error = error as? URLError, error.code == .resourceUnavailable else { return false }
        return (error.userInfo[NSLocalizedDescriptionKey] as? String)?.hasSuffix(reportedNote) == true
    }
}
