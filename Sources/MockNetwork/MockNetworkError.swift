import Foundation

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
    /// An upload task whose body Foundation did not pass on to MockNetwork (some upload forms on
    /// Apple platforms), so a handler would have seen an empty body.
    case uploadBodyUnreachable(String, bytes: Int)
    /// `MockResponse.json(_:encoder:status:headers:)` got a value its encoder cannot encode.
    case unencodableJSON(type: String, reason: String)
    /// A streamed body, server-sent event or pacing that cannot be sent as given; says why.
    case invalidStream(String)
    /// No request came that a test waited for (``MockRegistry/nextRequest(matching:timeout:)-(_,Duration)``,
    /// ``RequestGate/arrived(timeout:)-(Duration)``); says what was awaited, what was registered and what was seen.
    case requestNotSeen(String)
    /// A recorded request's body that does not decode as asked (``RecordedRequest/json(_:decoder:)``).
    case undecodableBody(String)

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
        case .uploadBodyUnreachable(let url, let bytes):
            "MockNetwork: the \(bytes)-byte body of the upload task for \(url) did not reach MockNetwork: "
                + "Foundation on this platform passes it to no URLProtocol. Send the body as the request's "
                + "httpBody with data(for:) or dataTask(with:) instead, which every platform passes on."
        case .unencodableJSON(let type, let reason):
            "MockNetwork: .json(_:) could not encode the \(type) to JSON: \(reason). Give it a value JSON can "
                + "hold (JSONEncoder has no NaN or infinity unless its nonConformingFloatEncodingStrategy says how), "
                + "or pass the JSON text."
        case .invalidStream(let reason):
            "MockNetwork: \(reason)"
        case .requestNotSeen(let report):
            "MockNetwork: \(report)"
        case .undecodableBody(let reason):
            "MockNetwork: \(reason)"
        case .downloadUnsupported(let url):
            "MockNetwork: download tasks (\(url)) cannot be mocked on Linux: its Foundation crashes when a "
                + "custom protocol answers one. Load the data with data(for:) or dataTask(with:) instead, "
                + "and write it to a file yourself if you need one; or, where the client chooses the task "
                + "(Alamofire's download), serve the registry with MockServer (MockNetworkServer) and point "
                + "the client at its URL: a download over real HTTP works."
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
