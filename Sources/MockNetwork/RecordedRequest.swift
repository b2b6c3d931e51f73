import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request a registry answered (or failed), as the handler saw it.
public struct RecordedRequest: Sendable, Equatable {
    /// The HTTP method, `GET` when the request named none.
    public let method: String
    /// The requested URL.
    public let url: URL
    /// The header fields the request carried into the protocol.
    public let headers: [String: String]
    /// The body bytes, however the client sent them (`httpBody`, a body stream, or an upload task);
    /// empty when there was none.
    public let body: Data
    /// The request itself, with `httpBody` set to ``body``.
    public let request: URLRequest

    init(_ request: URLRequest, body: Data) {
        self.method = request.httpMethod ?? "GET"
        self.url = request.url ?? URL(fileURLWithPath: "/")
        self.headers = request.allHTTPHeaderFields ?? [:]
        self.body = body
        self.request = request
    }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8.
    public var bodyText: String? { String(data: body, encoding: .utf8) }

    /// The value of a header field, its name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
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

    public var description: String { "\(fileID):\(line)" }
}

/// A problem a registry noticed while answering requests, kept until the test reports it.
public struct MockFailure: Sendable, Equatable, CustomStringConvertible {
    /// What happened, then how to fix it.
    public let message: String
    /// The registration the failure belongs to, when there is one.
    public let location: SourceLocation?

    public var description: String { message }
}
