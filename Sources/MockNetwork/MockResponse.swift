import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a handler answers: a status, headers and a body, or a network-level failure.
///
/// Build one with the static helpers, which read well as a handler's return value:
/// ```swift
/// mocks.register("https://api.example.com/user") { _ in
///     try .json(#"{"name": "Ada"}"#)
/// }
/// mocks.register("https://api.example.com/missing") { _ in try .status(404) }
/// mocks.register("https://api.example.com/offline") { _ in .failure(.notConnectedToInternet) }
/// ```
public struct MockResponse: Sendable {
    /// The HTTP status code, in `100...599`.
    public private(set) var status: Int
    /// The response's header fields, `Content-Type` included.
    public private(set) var headers: [String: String]
    /// The response body.
    public private(set) var body: Data
    /// The error the request fails with instead of answering, if any.
    public private(set) var error: (any Error)?

    /// A response with the given status, headers and body.
    ///
    /// - Throws: ``MockNetworkError/invalidStatusCode(_:)`` when `status` is outside `100...599`.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) throws {
        guard (100...599).contains(status) else { throw MockNetworkError.invalidStatusCode(status) }
        self.status = status
        self.headers = headers
        self.body = body
    }

    private init(failure: any Error) {
        self.status = 0
        self.headers = [:]
        self.body = Data()
        self.error = failure
    }

    private init(status: Int, headers: [String: String], body: Data, contentType: String) throws {
        var headers = headers
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
            headers["Content-Type"] = contentType
        }
        try self.init(status: status, headers: headers, body: body)
    }

    /// A JSON body given as text, sent as it is (malformed JSON included, for testing a client's
    /// error path). `Content-Type` is `application/json` unless `headers` sets it.
    public static func json(_ text: String, status: Int = 200, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(status: status, headers: headers, body: Data(text.utf8), contentType: "application/json")
    }

    /// A JSON body encoded from `value` with `encoder`. `Content-Type` is `application/json` unless
    /// `headers` sets it.
    ///
    /// - Throws: the encoder's error, or ``MockNetworkError/invalidStatusCode(_:)``.
    public static func json<Value: Encodable>(
        _ value: Value,
        encoder: JSONEncoder = JSONEncoder(),
        status: Int = 200,
        headers: [String: String] = [:]
    ) throws -> MockResponse {
        try MockResponse(status: status, headers: headers, body: encoder.encode(value), contentType: "application/json")
    }

    /// A plain-text body in UTF-8. `Content-Type` is `text/plain; charset=utf-8` unless `headers` sets it.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(
            status: status, headers: headers, body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
    }

    /// A body of raw bytes. `Content-Type` is `application/octet-stream` unless `headers` sets it.
    public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(status: status, headers: headers, body: data, contentType: "application/octet-stream")
    }

    /// A response with an empty body, such as `.status(204)` or `.status(404)`.
    public static func status(_ status: Int, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(status: status, headers: headers)
    }

    /// A network-level failure: the request fails with `URLError(code)`, as when the device is
    /// offline (`.notConnectedToInternet`) or the server never answers (`.timedOut`).
    public static func failure(_ code: URLError.Code) -> MockResponse {
        MockResponse(failure: URLError(code))
    }

    /// A failure with any error; the caller receives this same error value.
    public static func failure(_ error: any Error) -> MockResponse {
        MockResponse(failure: error)
    }

    /// This response with one more header field (replacing a field of the same name).
    public func header(_ name: String, _ value: String) -> MockResponse {
        var copy = self
        if let existing = copy.headers.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            copy.headers[existing] = nil
        }
        copy.headers[name] = value
        return copy
    }
}

/// Errors MockNetwork throws or fails requests with for input it cannot use.
public enum MockNetworkError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// A response status outside `100...599`.
    case invalidStatusCode(Int)
    /// A handler returned an `HTTPURLResponse` whose URL is not the request's.
    case responseURLMismatch(request: String, response: String)

    public var description: String {
        switch self {
        case .invalidStatusCode(let status):
            "MockNetwork: \(status) is not an HTTP status code. Use a status in 100...599, or "
                + ".failure(.notConnectedToInternet) (or another URLError code) for a network-level failure."
        case .responseURLMismatch(let request, let response):
            "MockNetwork: the handler for \(request) returned a response for \(response). Build the "
                + "HTTPURLResponse with the request's URL (request.url), or return a MockResponse, which does."
        }
    }

    public var errorDescription: String? { description }
}
