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
    /// The HTTP status code, in `200...599`.
    public private(set) var status: Int
    /// The response's header fields, `Content-Type` included.
    public private(set) var headers: [String: String]
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
    /// - Throws: ``MockNetworkError/unencodableJSON(type:reason:)`` when `encoder` cannot encode
    ///   `value` (reported as a failure at the handler's registration), or
    ///   ``MockNetworkError/invalidStatusCode(_:)``.
    public static func json<Value: Encodable>(
        _ value: Value,
        encoder: JSONEncoder = JSONEncoder(),
        status: Int = 200,
        headers: [String: String] = [:]
    ) throws -> MockResponse {
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch {
            throw MockNetworkError.unencodableJSON(type: "\(Value.self)", reason: MockResponse.reason(error))
        }
        return try MockResponse(status: status, headers: headers, body: body, contentType: "application/json")
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
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(
            status: status, headers: headers, body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
    }

    /// A body of raw bytes. `Content-Type` is `application/octet-stream` unless `headers` sets it.
    public static func data(_ data: Data, status: Int = 200, headers: [String: String] = [:]) throws -> MockResponse {
        try MockResponse(status: status, headers: headers, body: data, contentType: "application/octet-stream")
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
    /// - Throws: ``MockNetworkError/missingFixture(name:bundle:)`` naming the bundle and file.
    public static func fixture(_ name: String, in bundle: Bundle, status: Int = 200, headers: [String: String] = [:])
        throws -> MockResponse
    {
        let file = Fixtures.url(of: name, in: bundle)
        guard let file, let data = try? Data(contentsOf: file) else {
            throw MockNetworkError.missingFixture(name: name, bundle: bundle.bundleURL.path)
        }
        return try MockResponse(
            status: status, headers: headers, body: data, contentType: Fixtures.contentType(of: file.pathExtension))
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

    /// A redirect to `location` (absolute, or relative to the request's URL) with status 301, 302,
    /// 303, 307 or 308. The client ends with the response of the URL it leads to, unless
    /// ``followingRedirects(_:)`` says otherwise.
    public static func redirect(to location: String, status: Int = 302, headers: [String: String] = [:]) throws
        -> MockResponse
    {
        guard [301, 302, 303, 307, 308].contains(status) else { throw MockNetworkError.invalidRedirectStatus(status) }
        return try MockResponse(status: status, headers: headers.merging(["Location": location]) { $1 })
    }

    /// This response, arriving after `seconds`. A delay past the request's timeout ends the request
    /// with `URLError(.timedOut)` at the timeout, as the network would.
    public func delayed(by seconds: TimeInterval) -> MockResponse {
        var copy = self
        copy.delay = max(0, seconds)
        return copy
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
    /// A response status outside `200...599` (`1xx` statuses are interim, never an answer).
    case invalidStatusCode(Int)
    /// A handler returned an `HTTPURLResponse` whose URL is not the request's.
    case responseURLMismatch(request: String, response: String)
    /// A redirect with a status that is not a redirect's.
    case invalidRedirectStatus(Int)
    /// A fixture file that is not in the bundle.
    case missingFixture(name: String, bundle: String)
    /// A sequence of responses answered every response it had.
    case sequenceExhausted(request: String, count: Int)
    /// A download task, which Foundation on Linux cannot complete through a custom protocol.
    case downloadUnsupported(String)
    /// A file that ``MockRegistry/stubs(_:variant:in:unmatched:)`` serves and that is not in the
    /// variant's folder of the bundle.
    case missingStub(name: String, variant: String, bundle: String)
    /// `MOCKNETWORK_RECORD` holds a value that is not a ``HTTPArchive/RecordMode``.
    case invalidRecordMode(String)
    /// An archive to replay that does not exist; `command` records it.
    case missingArchive(path: String, command: String)
    /// An upload task whose body Foundation did not pass on to MockNetwork (some upload forms on
    /// Apple platforms), so a handler would have seen an empty body.
    case uploadBodyUnreachable(String, bytes: Int)
    /// `MockResponse.json(_:encoder:status:headers:)` got a value its encoder cannot encode.
    case unencodableJSON(type: String, reason: String)
    /// Two registries would record into the same archive file at once; `owner` is the one already recording.
    case archiveInUse(path: String, owner: String)
    /// An archive to record that is the copy inside a built bundle, which the next build replaces.
    case archiveInBundle(path: String)

    /// What went wrong, then how to fix it.
    public var description: String {
        switch self {
        case .invalidStatusCode(let status):
            (100...199).contains(status)
                ? "MockNetwork: \(status) is an interim status, which URLSession never hands to a client as the "
                    + "answer. Answer with the final status (200...599) the server sends after it."
                : "MockNetwork: \(status) is not an HTTP status code. Use a status in 200...599, or "
                    + ".failure(.notConnectedToInternet) (or another URLError code) for a network-level failure."
        case .responseURLMismatch(let request, let response):
            "MockNetwork: the handler for \(request) returned a response for \(response). Build the "
                + "HTTPURLResponse with the request's URL (request.url), or return a MockResponse, which does."
        case .invalidRedirectStatus(let status):
            "MockNetwork: \(status) is not a redirect status. Use 301, 302, 303, 307 or 308."
        case .missingFixture(let name, let bundle):
            "MockNetwork: no fixture \"\(name)\" in the bundle at \(bundle). Add the file to the target's "
                + "resources (e.g. resources: [.copy(\"Fixtures\")]) and name it as it is in the bundle; "
                + "without an extension, .json is assumed."
        case .sequenceExhausted(let request, let count):
            "MockNetwork: \(request) was requested more often than its \(count) registered responses. "
                + "Register more responses, or expect fewer requests."
        case .missingStub(let name, let variant, let bundle):
            "MockNetwork: no file \"\(name)\" for the stub variant \"\(variant)\" in the bundle at \(bundle) "
                + "(looked for \(AppStubs.candidates(for: name, variant: variant).joined(separator: " and "))). "
                + "Add the file to that variant's folder, or point the URL at a file that exists."
        case .invalidRecordMode(let text):
            "MockNetwork: MOCKNETWORK_RECORD=\(text) is not a record mode. Use none (replay only, the default), "
                + "once (record archives that do not exist yet), rewrite (record them afresh) or missing (record "
                + "only the requests an archive lacks)."
        case .missingArchive(let path, let command):
            "MockNetwork: there is no archive at \(path) to replay. Record it from the real server: \(command)"
        case .uploadBodyUnreachable(let url, let bytes):
            "MockNetwork: the \(bytes)-byte body of the upload task for \(url) did not reach MockNetwork: "
                + "Foundation on this platform passes it to no URLProtocol. Send the body as the request's "
                + "httpBody with data(for:) or dataTask(with:) instead, which every platform passes on."
        case .unencodableJSON(let type, let reason):
            "MockNetwork: .json(_:) could not encode the \(type) to JSON: \(reason). Give it a value JSON can "
                + "hold (JSONEncoder has no NaN or infinity unless its nonConformingFloatEncodingStrategy says how), "
                + "or pass the JSON text."
        case .archiveInUse(let path, let owner):
            "MockNetwork: \(owner) is already recording the archive \(path); recording into it here too would "
                + "overwrite one with the other. Give each test an archive of its own, or record them one at a time."
        case .archiveInBundle(let path):
            "MockNetwork: \(path) is the copy of an archive that a build put in a bundle; a recording there "
                + "would be replaced by the next build. Record the archive in your source tree: pass its path there "
                + "to useArchive(at:), or use the .mockNetwork(archive:bundle:) trait or MockNetworkTestCase's "
                + "useArchive(_:bundle:), which record next to the test and replay from the bundle on a device."
        case .downloadUnsupported(let url):
            "MockNetwork: download tasks (\(url)) cannot be mocked on Linux: its Foundation crashes when a "
                + "custom protocol answers one. Load the data with data(for:) or dataTask(with:) instead, "
                + "and write it to a file yourself if you need one."
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
