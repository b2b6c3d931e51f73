import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a handler answers: a status, headers and a body, or a network-level failure.
///
/// Build one with the static helpers, which read well as a handler's return value:
/// ```swift
/// mocks.register("https://api.example.com/user") { _ in
///     .json(#"{"name": "Ada"}"#)
/// }
/// mocks.register("https://api.example.com/missing") { _ in .status(404) }
/// mocks.register("https://api.example.com/offline") { _ in .failure(.notConnectedToInternet) }
/// ```
///
/// A builder given input it cannot use (`.status(700)`, a value `.json` cannot encode, a fixture
/// that is not there) throws nothing: it makes a response that fails its request, and records the
/// failure of the test at the builder's line, saying what was wrong and how to fix it.
///
/// Builders: `json` (text or an `Encodable`), `text`, `data`, `fixture`, `status`, `redirect`,
/// `failure`, and for bodies over time `streamed` and `events`. Modifiers, which return a changed
/// copy: `status(_:)` (`.json(error).status(500)`), `header(_:_:)`, `delayed(by:)`,
/// `chunked(into:)`, `throttled(bytesPerSecond:)`, `failing(after:with:)` and
/// `followingRedirects(_:)`.
public struct MockResponse: Sendable {
    /// The HTTP status code, in `200...599`.
    public private(set) var status: Int
    /// The response's header fields, `Content-Type` included.
    public internal(set) var headers: [String: String]
    /// The response body.
    public private(set) var body: Data
    /// The error the request fails with instead of answering, if any.
    public private(set) var error: (any Error)?
    /// How long the answer takes to arrive, in seconds.
    public private(set) var delay: TimeInterval = 0
    /// The size of the pieces the body arrives in at a session delegate; `nil` for one piece.
    public private(set) var chunkSize: Int?
    /// Whether a 3xx answer with a `Location` is followed (`true`, the default) or returned as it is.
    public private(set) var followsRedirects = true
    /// How the body arrives over time (see `MockResponse+Streams.swift`); `nil` for all at once.
    var pacing: BodyPacing?
    /// Where a builder was given input it cannot use, and what was wrong: the response fails its
    /// request with ``error``, and the test at this place.
    var invalidAt: SourceLocation?
    /// What a product's builder checks against the request the response answers (see ``RequestCheck``).
    package var requestCheck: RequestCheck?

    /// A response with the given status, headers and body.
    ///
    /// - Throws: ``MockNetworkError/invalidStatusCode(_:)`` when `status` is outside `200...599`:
    ///   a `1xx` status is an interim response, which URLSession never hands to a client as the answer.
    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) throws {
        guard MockResponse.finalStatuses.contains(status) else { throw MockNetworkError.invalidStatusCode(status) }
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

    /// A response that fails its request with `error`, a builder's input that could not be used,
    /// and records the failure at `location`, the builder's call.
    package static func invalid(_ error: any Error, at location: SourceLocation) -> MockResponse {
        var response = MockResponse(failure: error)
        response.invalidAt = location
        return response
    }

    /// What `make` builds, or when it throws (its input is wrong), a response that fails its
    /// request and the test at `location`.
    package static func checked(at location: SourceLocation, _ make: () throws -> MockResponse) -> MockResponse {
        do {
            return try make()
        } catch {
            return invalid(error, at: location)
        }
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
    public static func json(
        _ text: String, status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try MockResponse(status: status, headers: headers, body: Data(text.utf8), contentType: "application/json")
        }
    }

    /// A JSON body encoded from `value` with `encoder`. `Content-Type` is `application/json` unless
    /// `headers` sets it.
    ///
    /// When `encoder` cannot encode `value`, the response fails its request with
    /// ``MockNetworkError/unencodableJSON(type:reason:)``, and the test at this call.
    public static func json<Value: Encodable>(
        _ value: Value,
        encoder: JSONEncoder = JSONEncoder(),
        status: Int = 200,
        headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            let body: Data
            do {
                body = try encoder.encode(value)
            } catch {
                throw MockNetworkError.unencodableJSON(type: "\(Value.self)", reason: MockResponse.reason(error))
            }
            return try MockResponse(status: status, headers: headers, body: body, contentType: "application/json")
        }
    }

    /// The statuses a final response may have. (`1xx` ones are interim: URLSession reads past them.)
    static let finalStatuses = 200...599

    /// What an encoding error says, without Foundation's wrapping.
    private static func reason(_ error: any Error) -> String {
        if let error = error as? EncodingError, case .invalidValue(let value, let context) = error {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "\(context.debugDescription) (the value \(value)\(path.isEmpty ? "" : " at \(path)"))"
        }
        return "\(error)"
    }

    /// A plain-text body in UTF-8. `Content-Type` is `text/plain; charset=utf-8` unless `headers` sets it.
    public static func text(
        _ text: String, status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try MockResponse(
                status: status, headers: headers, body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
        }
    }

    /// A body of raw bytes. `Content-Type` is `application/octet-stream` unless `headers` sets it.
    public static func data(
        _ data: Data, status: Int = 200, headers: [String: String] = [:], fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try MockResponse(status: status, headers: headers, body: data, contentType: "application/octet-stream")
        }
    }

    /// A body read from the file `name` in `bundle` (such as `Bundle.module` of a test target with
    /// `resources: [.copy("Fixtures")]`). With no extension in `name`, `.json` is assumed.
    /// `Content-Type` follows the extension unless `headers` sets it.
    ///
    /// - Parameters:
    ///   - name: the file's name, e.g. `"user"`, `"user.json"` or `"Fixtures/user.json"`.
    ///   - bundle: the bundle that holds the file.
    ///   - status: the HTTP status, 200 unless given.
    ///   - headers: header fields to send besides the `Content-Type`.
    ///   - fileID: where the builder is called, for the failure a missing file records; leave the default.
    ///   - filePath: where the builder is called; leave the default.
    ///   - line: where the builder is called; leave the default.
    ///   - column: where the builder is called; leave the default.
    ///
    /// A file that is not there fails the request with ``MockNetworkError/missingFixture(name:bundle:)``,
    /// naming the bundle and file, and the test at this call.
    public static func fixture(
        _ name: String, in bundle: Bundle, status: Int = 200, headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            let file = Fixtures.url(of: name, in: bundle)
            guard let file, let data = try? Data(contentsOf: file) else {
                throw MockNetworkError.missingFixture(name: name, bundle: bundle.bundleURL.path)
            }
            return try MockResponse(
                status: status, headers: headers, body: data, contentType: Fixtures.contentType(of: file.pathExtension))
        }
    }

    /// A response with an empty body, such as `.status(204)` or `.status(404)`. A status outside
    /// `200...599` fails the request with ``MockNetworkError/invalidStatusCode(_:)``, and the test
    /// at this call.
    public static func status(
        _ status: Int, headers: [String: String] = [:], fileID: String = #fileID, filePath: String = #filePath,
        line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            try MockResponse(status: status, headers: headers)
        }
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

    /// A redirect to `location` (absolute, or relative to the request's URL) with status 301, 302,
    /// 303, 307 or 308. The client ends with the response of the URL it leads to, unless
    /// ``followingRedirects(_:)`` says otherwise.
    public static func redirect(
        to location: String, status: Int = 302, headers: [String: String] = [:], fileID: String = #fileID,
        filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            guard [301, 302, 303, 307, 308].contains(status) else {
                throw MockNetworkError.invalidRedirectStatus(status)
            }
            return try MockResponse(status: status, headers: headers.merging(["Location": location]) { $1 })
        }
    }

    /// This response, arriving after `seconds`. A delay past the request's timeout ends the request
    /// with `URLError(.timedOut)` at the timeout, as the network would.
    public func delayed(by seconds: TimeInterval) -> MockResponse {
        var copy = self
        copy.delay = max(0, seconds)
        return copy
    }

    /// This response, arriving after `duration` (`.delayed(by: .milliseconds(300))`), as the form that
    /// takes seconds does.
    public func delayed(by duration: Duration) -> MockResponse {
        delayed(by: BodyPacing.seconds(duration))
    }

    /// This response, with its body arriving at a session delegate in pieces of `size` bytes.
    /// `data(for:)` and completion handlers still receive the whole body.
    public func chunked(into size: Int) -> MockResponse {
        var copy = self
        copy.chunkSize = max(1, size)
        return copy
    }

    /// This 3xx response, followed to its `Location` (`true`) or returned to the client as it is (`false`).
    public func followingRedirects(_ follow: Bool) -> MockResponse {
        var copy = self
        copy.followsRedirects = follow
        return copy
    }

    /// This response with another status: `.json(error).status(500)`. A status outside `200...599`
    /// fails the request with ``MockNetworkError/invalidStatusCode(_:)``, and the test at this call.
    public func status(
        _ status: Int, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        guard MockResponse.finalStatuses.contains(status) else {
            return .invalid(
                MockNetworkError.invalidStatusCode(status),
                at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
        var copy = self
        copy.status = status
        return copy
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

extension MockResponse {
    /// This response, or the error its builder was given input it cannot use for: what a builder
    /// says of its input, thrown (a product's builder, or a test of one, checks it).
    package func validated() throws -> MockResponse {
        if invalidAt != nil, let error { throw error }
        return self
    }
}
