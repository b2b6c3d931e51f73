import Dispatch
import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's side of UI tests with live handlers: every request the launched registry's session makes
/// goes to the UI test's `MockServer` (`MOCKNETWORK_SERVER`), carrying its original URL, its own header
/// fields and the server's secret, and comes back with what the test's handlers answered.
///
/// It is a handler of the launched registry, registered as a default: a scenario's stubs and an
/// archive's entries, when the launch names them too, answer first. So the request is logged (the
/// launch report lists it), a redirect the test answers is followed through the registry again (and
/// forwarded again), and a cancel reaches the test's `async` handler, as the server cancels it when
/// its connection closes. The answer comes back whole, when the test's handler has finished it: the
/// path to the network reads an answer in one piece, so a body over time (`.streamed`, `.events`)
/// reaches the app at its end, not piece by piece.
final class LaunchForwarder: Sendable {
    /// What sends a forwarded request to the server and gives back its answer, or throws the error
    /// the forwarding request failed with, as Foundation gave it.
    typealias Transport = @Sendable (URLRequest) async throws -> (Data, HTTPURLResponse)

    /// `http://127.0.0.1:<port>`, without a trailing `/`.
    let server: String
    /// The same, as a URL.
    private let serverURL: URL
    private let secret: String
    /// The forwarding session, or in MockNetwork's tests one that fails as a platform would (an App
    /// Transport Security refusal, which Linux never makes).
    private let transport: Transport
    /// Whether an App Transport Security refusal was noted as a failure of the app's registry yet:
    /// the report lists it once, however many requests it refused.
    private let refusalNoted = Locked(false)

    /// A forwarder to the server `value` names, with `secret`.
    ///
    /// - Throws: ``MockLaunchError/invalidServer(_:reason:)`` for anything but an `http` URL on
    ///   127.0.0.1 with a port (a launch environment may not send the app's requests, their
    ///   `Authorization` fields included, to another machine), or no secret.
    init(server value: String, secret: String?, transport: @escaping Transport = LaunchForwarder.load) throws {
        guard let url = URL(string: value), url.scheme == "http", url.host == "127.0.0.1", url.port != nil,
            url.path.isEmpty || url.path == "/", url.query == nil
        else {
            throw MockLaunchError.invalidServer(
                value, reason: "is not the URL of a server on this machine's loopback, such as http://127.0.0.1:54321")
        }
        guard let secret, !secret.isEmpty else {
            throw MockLaunchError.invalidServer(
                value, reason: "comes without the server's secret (\(LaunchSettings.secretVariable))")
        }
        server = value.hasSuffix("/") ? String(value.dropLast()) : value
        serverURL = url
        self.secret = secret
        self.transport = transport
    }

    /// Registers the forwarding on `registry`, as a default: any handler registered otherwise (a
    /// scenario's stubs) and an archive's entries win over it.
    func install(on registry: MockRegistry) {
        registry.addFallback { [self, weak registry] request in try await forward(request, for: registry) }
    }

    /// Sends `original` (as the handlers saw it: its body in `httpBody`) to the server, and gives back
    /// the answer on `original`'s URL, or the error the test's handler failed with. A connection the
    /// platform refused is also a failure of `registry`, the app's, so its launch report lists it.
    func forward(_ original: URLRequest, for registry: MockRegistry?) async throws -> (HTTPURLResponse, Data) {
        let request = forwarded(original)
        let (data, response): (Data, HTTPURLResponse)
        do {
            (data, response) = try await transport(request)
        } catch {
            let error = Self.unreachable(error, server, request.httpMethod ?? "GET", original.url?.absoluteString ?? "")
            if let refusal = error as? URLError, refusal.code == .appTransportSecurityRequiresSecureConnection {
                let first = refusalNoted.withLock { noted in
                    defer { noted = true }
                    return !noted
                }
                if first { registry?.record(MockFailure(message: refusal.localizedDescription, location: nil)) }
            }
            throw error
        }
        if let failure = response.value(forHTTPHeaderField: ForwardingFields.failure) {
            throw error(failure, body: data, original)
        }
        guard let url = original.url,
            let answer = HTTPURLResponse(
                url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: Self.fields(response))
        else { throw URLError(.badServerResponse) }
        return (answer, data)
    }

    /// The request as it goes to the server: the original's path and query on the server's URL, its
    /// method, fields and body, and the forwarding's own fields.
    func forwarded(_ original: URLRequest) -> URLRequest {
        let components = original.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
        var target = components?.percentEncodedPath ?? ""
        if !target.hasPrefix("/") { target = "/" + target }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        var request = URLRequest(
            url: URL(string: server + target) ?? serverURL, cachePolicy: .reloadIgnoringLocalCacheData,
            // MockNetwork's own deadline for the app's request comes first, and cancels this one.
            timeoutInterval: original.timeoutInterval + 10)
        request.httpMethod = original.httpMethod ?? "GET"
        let fields = original.allHTTPHeaderFields ?? [:]
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(original.url?.absoluteString ?? "", forHTTPHeaderField: ForwardingFields.url)
        request.setValue(secret, forHTTPHeaderField: ForwardingFields.secret)
        request.setValue(fields.keys.sorted().joined(separator: ", "), forHTTPHeaderField: ForwardingFields.fields)
        request.httpShouldHandleCookies = false
        if let body = original.httpBody, !body.isEmpty { request.httpBody = body }
        return request
    }

    /// The fields of the server's answer the app sees: all but those of the connection.
    private static func fields(_ response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let value = value as? String,
                !["connection", "keep-alive", "transfer-encoding"].contains(name.lowercased())
            else { continue }
            fields[name] = value
        }
        return fields
    }

    /// The error a failure the server names stands for, as the app would get it in a unit test.
    private func error(_ failure: String, body: Data, _ original: URLRequest) -> any Error {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let url = original.url
        var info: [String: Any] = [:]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        let words = failure.split(separator: " ")
        switch words.first {
        case "unmatched":
            // As in unit tests: the summary for the app, the whole report for the test's failure.
            let summary = text.prefix { $0 != "\n" }
            info[NSLocalizedDescriptionKey] =
                "\(summary) (nothing the UI test registered on its MockServer matches; "
                + "see the UI test's failure for the nearest match)."
            return URLError(.resourceUnavailable, userInfo: info)
        case "error" where words.count >= 3:
            info[NSLocalizedDescriptionKey] = text
            let domain = words.dropFirst().dropLast().joined(separator: " ")
            let code = Int(words[words.count - 1]) ?? 0
            guard domain == NSURLErrorDomain else { return NSError(domain: domain, code: code, userInfo: info) }
            // The code's initializer is failable in swift-corelibs-foundation only.
            #if canImport(FoundationNetworking)
                guard let urlCode = URLError.Code(rawValue: code) else {
                    return NSError(domain: domain, code: code, userInfo: info)
                }
                return URLError(urlCode, userInfo: info)
            #else
                return URLError(URLError.Code(rawValue: code), userInfo: info)
            #endif
        default:
            info[NSLocalizedDescriptionKey] = text
            return URLError(.resourceUnavailable, userInfo: info)
        }
    }

    /// Loads `request` on the forwarding session; a cancel of the calling task cancels it.
    @Sendable static func load(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let state = Locked<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: error ?? URLError(.badServerResponse))
                    }
                }
                let cancelled = state.withLock { state in
                    state.task = task
                    return state.cancelled
                }
                task.resume()
                if cancelled { task.cancel() }
            }
        } onCancel: {
            let task = state.withLock { state in
                state.cancelled = true
                return state.task
            }
            // Not from here: the cancel may come from `stopLoading`, on Foundation's queue on Linux,
            // where touching any session's task waits for that same queue (and traps).
            if let task { DispatchQueue.global().async { task.cancel() } }
        }
    }

    /// `error`, with a message that says what to do when the server could not be reached, or when App
    /// Transport Security refused the connection (Apple's `URLError` code -1022).
    static func unreachable(_ error: any Error, _ server: String, _ method: String, _ original: String) -> any Error {
        guard let error = error as? URLError else { return error }
        #if os(macOS)
            // A sandboxed app may not connect without this entitlement (Apple's App Sandbox
            // documentation); which URLError code that surfaces as is not verified here.
            let sandboxed = " A sandboxed macOS app needs the entitlement com.apple.security.network.client to connect."
        #else
            let sandboxed = ""
        #endif
        let message: String
        switch error.code {
        case .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .networkConnectionLost:
            let what =
                error.code == .networkConnectionLost ? "closed the connection before it answered" : "was not reachable"
            message =
                "MockNetwork: the UI test's MockServer at \(server) "
                + "(\(LaunchSettings.serverVariable)) \(what), so \(method) \(original) got no answer "
                + "(\(error.localizedDescription)). The UI test must keep its MockServer running while the app "
                + "runs: start it before launching the app, keep it in a property of the test rather than a "
                + "local that ends with a function, and end the app before the test ends. The server must run "
                + "in the UI test itself (on a device, in its test runner there): a server on the Mac is "
                + "not on a device's 127.0.0.1." + sandboxed
        case .appTransportSecurityRequiresSecureConnection:
            // Apple's code for a connection App Transport Security refused (-1022); Linux never gives it.
            message =
                "MockNetwork: App Transport Security refused the app's connection to the UI test's MockServer at "
                + "\(server) (\(LaunchSettings.serverVariable)), so \(method) \(original) got no answer "
                + "(\(error.localizedDescription)). The app reaches the server over plain HTTP on 127.0.0.1: add "
                + "NSAppTransportSecurity → NSAllowsLocalNetworking = YES to the Info.plist of the app's debug build."
        default:
            return error
        }
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url = URL(string: original) { info[NSURLErrorFailingURLErrorKey] = url }
        return URLError(error.code, userInfo: info)
    }

    /// The session that reaches the server: no cache, no cookies (the app's session keeps its own),
    /// and no redirects followed (the app's registry follows those the test answers, through its
    /// handlers again).
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        // Held requests each keep a connection: more than the default 6 at a time must not queue.
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 3_600
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()
}

/// Hands each redirect to the app as it is: the app's own registry decides whether to follow it.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
