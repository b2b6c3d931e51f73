import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP Archive (HAR 1.2): the format browsers' developer tools export and open, used here as
/// recorded traffic to answer requests from.
///
/// Archives from Chrome, Firefox and Safari load as they are: fields MockNetwork has no use for
/// (`pages`, `cache`, `timings`, `_initiator`, …) are ignored, and so are missing optional ones.
/// A broken archive fails with ``HTTPArchive/LoadError``, which names the file, the JSON path and
/// what was expected there.
///
/// ```swift
/// let archive = try HTTPArchive(contentsOf: URL(fileURLWithPath: "Tests/Archives/login.har"))
/// try mocks.replay(archive)
/// ```
public struct HTTPArchive: Sendable, Equatable {
    /// The exchanges, in the order they happened.
    public var entries: [Entry]

    /// An archive of `entries`.
    public init(entries: [Entry] = []) {
        self.entries = entries
    }

    /// One request and the response it got.
    public struct Entry: Sendable, Equatable {
        /// When the request started, as ISO 8601 text.
        public var startedDateTime: String
        /// How long the exchange took, in milliseconds.
        public var time: Double
        /// The request.
        public var request: Request
        /// The response; a status of 0 means the request got none (it failed).
        public var response: Response
        /// Why the request failed, when it did (`_error`, as Chrome writes it).
        public var error: String?
        /// The messages of a WebSocket this request opened, in order (`_webSocketMessages`, as
        /// browsers write it); `nil` for any other request.
        public var webSocketMessages: [WebSocketMessage]?

        /// An entry for `request` and `response`.
        public init(
            request: Request, response: Response, startedDateTime: Date = Date(), time: Double = 0,
            error: String? = nil
        ) {
            self.startedDateTime = HTTPArchive.dateText(startedDateTime)
            self.time = time
            self.request = request
            self.response = response
            self.error = error
        }
    }

    /// One message on a WebSocket, as browsers' archives hold it.
    public struct WebSocketMessage: Sendable, Equatable, Codable {
        /// `send` for the client's, `receive` for the server's.
        public var type: String
        /// When, in seconds since 1970.
        public var time: Double
        /// 1 for text, 2 for binary.
        public var opcode: Int
        /// The text, or the binary data in base64.
        public var data: String

        /// A message with the given parts.
        public init(type: String, time: Double, opcode: Int, data: String) {
            self.type = type
            self.time = time
            self.opcode = opcode
            self.data = data
        }
    }

    /// A request as an archive holds it.
    public struct Request: Sendable, Equatable {
        /// The HTTP method.
        public var method: String
        /// The full URL, query included.
        public var url: String
        /// The HTTP version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The header fields, in order; a name may appear more than once.
        public var headers: [Header]
        /// The body, when the request had one.
        public var body: Body?

        /// A request with the given parts.
        public init(
            method: String, url: String, headers: [Header] = [], body: Body? = nil, httpVersion: String = "HTTP/1.1"
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.headers = headers
            self.body = body
        }
    }

    /// A response as an archive holds it.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code; 0 for a request that got no response.
        public var status: Int
        /// The reason phrase, such as `OK`.
        public var statusText: String
        /// The HTTP version, such as `HTTP/1.1`.
        public var httpVersion: String
        /// The header fields, in order; a name may appear more than once.
        public var headers: [Header]
        /// The body (HAR's `content`).
        public var body: Body

        /// A response with the given parts.
        public init(
            status: Int, headers: [Header] = [], body: Body = Body(Data()), statusText: String? = nil,
            httpVersion: String = "HTTP/1.1"
        ) {
            self.status = status
            self.statusText = statusText ?? HTTPArchive.reasonPhrase(status)
            self.httpVersion = httpVersion
            self.headers = headers
            self.body = body
        }
    }

    /// A header field.
    public struct Header: Sendable, Equatable {
        /// The field's name, as it was sent.
        public var name: String
        /// The field's value.
        public var value: String

        /// The field `name: value`.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A body: its bytes and media type. In the file it is text, or base64 when it is not UTF-8
    /// (`"encoding": "base64"`).
    public struct Body: Sendable, Equatable {
        /// The bytes.
        public var data: Data
        /// The media type, such as `application/json`; empty when unknown.
        public var mimeType: String

        /// A body of `data`.
        public init(_ data: Data, mimeType: String = "") {
            self.data = data
            self.mimeType = mimeType
        }

        /// The bytes as UTF-8 text, or `nil` when they are not.
        public var text: String? { String(data: data, encoding: .utf8) }
    }
}
