import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The parity suite runs one piece of client code three times: against `LoopbackServer` (real HTTP on
// 127.0.0.1), against a MockNetwork registry whose handlers answer the same routes at the same
// URLs, and against such a registry served over HTTP by `MockServer` (a plain session, a real
// exchange). What the client can observe must be the same; where Linux's Foundation makes that
// impossible, the scenario names the difference it pins.

/// Everything the client code can observe of one exchange, and what the other side received.
struct Observation: Equatable, CustomStringConvertible {
    var status: Int?
    /// Response header fields by lowercased name, without `Connection` (the server's framing).
    var headers: [String: String] = [:]
    var body = Data()
    var expectedContentLength: Int64?
    var responseURL: String?
    var currentRequestURL: String?
    /// Session delegate callbacks in order; consecutive data pieces count as one (TCP splits them anywhere).
    var events: [String] = []
    /// `domain code` of the error the client got, if any.
    var error: String?
    /// The cookies in the session's cookie storage for the server's URL, `name=value`, sorted.
    var cookies: [String] = []
    /// Each request the server or the handlers received: method, target, headers the client set, body.
    var received: [String] = []

    var description: String {
        var lines = [
            "status \(status.map(String.init) ?? "none"), length \(expectedContentLength.map(String.init) ?? "none")"
        ]
        lines.append("headers \(headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
        lines.append("body \(body.count) bytes: \(String(decoding: body.prefix(80), as: UTF8.self))")
        lines.append("url \(responseURL ?? "none"), current \(currentRequestURL ?? "none")")
        lines.append("events \(events)")
        lines.append("error \(error ?? "none"), cookies \(cookies)")
        lines.append("received \(received)")
        return lines.joined(separator: "\n  ")
    }

    /// The names of the fields in which `self` and `other` differ.
    func differences(from other: Observation) -> [String] {
        var out: [String] = []
        if status != other.status { out.append("status") }
        if headers != other.headers { out.append("headers") }
        if body != other.body { out.append("body") }
        if expectedContentLength != other.expectedContentLength { out.append("expectedContentLength") }
        if responseURL != other.responseURL { out.append("responseURL") }
        if currentRequestURL != other.currentRequestURL { out.append("currentRequest") }
        if events != other.events { out.append("events") }
        if error != other.error { out.append("error") }
        if cookies != other.cookies { out.append("cookies") }
        if received != other.received { out.append("received") }
        return out
    }
}

/// What the client code of a scenario gets: a session (with a recording delegate) and the server's URLs.
struct ParityClient: Sendable {
    let session: URLSession
    let base: URL
    let recorder: ParityRecorder

    func url(_ target: String) -> URL { URL(string: base.absoluteString + target)! }

    /// A request for `target` with `method`, headers and body.
    func request(
        _ method: String, _ target: String, headers: [String: String] = [:], body: Data? = nil,
        timeout: TimeInterval? = nil
    ) -> URLRequest {
        var request = URLRequest(url: url(target))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        if let timeout { request.timeoutInterval = timeout }
        return request
    }
}

/// One piece of client code, the routes both sides answer, and the differences Linux pins.
struct ParityScenario: Sendable {
    typealias Run = @Sendable (ParityClient) async -> ClientResult

    let name: String
    let routes: [String: LoopbackServer.Response]
    var configure: @Sendable (URLSessionConfiguration) -> Void = { _ in }
    /// How the session's data delegate answers a response.
    var disposition: URLSession.ResponseDisposition = .allow
    /// Whether the session's delegate lets redirects be followed.
    var followsRedirects = true
    /// Fields that differ for a reason Foundation gives, documented in `LinuxDifferences`: the scenario
    /// asserts they differ, and the rest match.
    var pinned: [String] = []
    /// Fields in which the served registry differs from the server, for the reason the scenario gives.
    var servedPinned: [String] = []
    let run: Run
}

/// What the client code saw; the harness adds events, cookies and what was received.
struct ClientResult: Sendable {
    var response: URLResponse?
    var body = Data()
    var error: (any Error)?
    var task: URLSessionTask?
}

/// Records the session delegate callbacks the client code could see.
final class ParityRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is `Shared`
    let events = Shared<[String]>([])
    /// The body bytes the data delegate got.
    let body = Shared<Data>(Data())
    /// How a data delegate answers the response.
    let disposition: URLSession.ResponseDisposition
    /// Whether a redirect is followed (`willPerformHTTPRedirection` hands on the new request).
    let followsRedirects: Bool

    init(disposition: URLSession.ResponseDisposition = .allow, followsRedirects: Bool = true) {
        self.disposition = disposition
        self.followsRedirects = followsRedirects
    }

    private func add(_ event: String) {
        events.update { events in
            if event == "data", events.last == "data" { return }
            if event.hasPrefix("sent "), events.last?.hasPrefix("sent ") == true { events.removeLast() }
            events.append(event)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        add("response \((response as? HTTPURLResponse)?.statusCode ?? -1)")
        completionHandler(disposition)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        body.update { $0.append(data) }
        add("data")
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        add("redirect \(response.statusCode) to \(request.url?.path ?? "?") as \(request.httpMethod ?? "GET")")
        completionHandler(followsRedirects ? request : nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        add("sent \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        add("complete \(error.map { ParityHarness.describe($0) } ?? "ok")")
    }
}

enum ParityHarness {
    /// Whether `value` is an `Accept-Language` the platform sends when the client set none: `en` on
    /// Linux; on Apple platforms one made from the user's languages, which names a region or
    /// several languages (`en-US,en;q=0.9`). The scenarios set only bare ones (`de`).
    static func isPlatformDefaultLanguage(_ value: String) -> Bool {
        #if canImport(FoundationNetworking)
            return value == "en"
        #else
            return value == "en" || value.contains("-") || value.contains(",")
        #endif
    }

    /// The events both sides can have on this platform. On Apple platforms the URL loading system
    /// reports upload progress (`didSendBodyData`) for its own HTTP, but a custom protocol has no way
    /// to report it and MockNetwork cannot reach the session's delegate there (on Linux it does, and
    /// the events stay compared).
    static func comparableEvents(_ events: [String]) -> [String] {
        #if canImport(FoundationNetworking)
            return events
        #else
            return events.filter { !$0.hasPrefix("sent ") }
        #endif
    }

    /// Request headers that the transport adds on the wire (libcurl), not the client code.
    static let transportHeaders: Set<String> = [
        "host", "connection", "content-length", "accept-encoding", "transfer-encoding", "expect",
    ]

    static func describe(_ error: any Error) -> String {
        let error = error as NSError
        return "\(error.domain) \(error.code)"
    }

    /// Runs `scenario` against a fresh server, a fresh registry, and a fresh registry served over
    /// HTTP; returns the three observations.
    static func observe(
        _ scenario: ParityScenario
    ) async throws -> (server: Observation, mock: Observation, served: Observation) {
        let makeRecorder = { @Sendable in
            ParityRecorder(disposition: scenario.disposition, followsRedirects: scenario.followsRedirects)
        }
        let server = try LoopbackServer(routes: scenario.routes, maxRequests: 64, lifetime: 30)
        defer { server.stop() }

        let serverConfiguration = URLSessionConfiguration.ephemeral
        serverConfiguration.httpCookieStorage = nil
        scenario.configure(serverConfiguration)
        let serverSide = try await observe(
            scenario, configuration: serverConfiguration, base: server.baseURL, makeRecorder)
        var serverObservation = serverSide.observation
        serverObservation.received = server.received.map { received in
            describeReceived(
                method: received.method, target: received.target, headers: received.headers, body: received.body,
                defaults: true)
        }

        let mocks = registry(answering: scenario.routes, at: server.baseURL)
        let mockConfiguration = mocks.configuration
        scenario.configure(mockConfiguration)
        let before = server.received.count
        var mockObservation = try await observe(
            scenario, configuration: mockConfiguration, base: server.baseURL, makeRecorder
        ).observation
        XCTAssertEqual(server.received.count, before, "\(scenario.name): the mocked run reached the server")
        mockObservation.received = mocks.requests.map { request in
            var target = request.url.path
            if target.isEmpty { target = "/" }
            if let query = request.url.query { target += "?" + query }
            let headers = Dictionary(
                request.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            return describeReceived(
                method: request.method, target: target, headers: headers, body: request.body, defaults: false)
        }
        _ = mocks.takeFailures()
        let servedObservation = try await observeServed(scenario, as: server.baseURL, makeRecorder)
        XCTAssertEqual(server.received.count, before, "\(scenario.name): the served run reached the server")
        return (serverObservation, mockObservation, servedObservation)
    }

    /// What the scenario's client code observes on a session of `configuration`, its URLs on `base`.
    static func observe(
        _ scenario: ParityScenario, configuration: URLSessionConfiguration, base: URL,
        _ makeRecorder: @Sendable () -> ParityRecorder
    ) async throws -> (observation: Observation, session: URLSession) {
        let recorder = makeRecorder()
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let result = await scenario.run(ParityClient(session: session, base: base, recorder: recorder))
        var observation = Observation()
        if let http = result.response as? HTTPURLResponse {
            observation.status = http.statusCode
            for (name, value) in http.allHeaderFields {
                let name = "\(name)".lowercased()
                if name == "connection" { continue }
                observation.headers[name] = "\(value)"
            }
        }
        observation.expectedContentLength = result.response?.expectedContentLength
        observation.responseURL = result.response?.url?.absoluteString
        observation.currentRequestURL = result.task?.currentRequest?.url?.absoluteString
        observation.body = result.body
        observation.error = result.error.map(describe)
        observation.events = comparableEvents(recorder.events.current)
        if let storage = configuration.httpCookieStorage {
            observation.cookies = (storage.cookies(for: base) ?? []).map { "\($0.name)=\($0.value)" }.sorted()
        }
        return (observation, session)
    }

    /// One received request as text. On the server side (`defaults`), the values the platform's
    /// HTTP stack puts in when the client set none are left out: libcurl's and Linux Foundation's
    /// (`Accept: */*`, their `User-Agent`, `Accept-Language: en`), and Apple's (a CFNetwork
    /// `User-Agent`, an `Accept-Language` from the user's languages). None of them reaches a protocol.
    static func describeReceived(
        method: String, target: String, headers: [String: String], body: Data, defaults: Bool
    ) -> String {
        var fields = headers.filter { !transportHeaders.contains($0.key) }
        if defaults {
            if fields["accept"] == "*/*" { fields["accept"] = nil }
            if let agent = fields["user-agent"],
                agent.contains("(unknown version)") || agent.hasPrefix("curl/") || agent.contains("CFNetwork/")
            {
                fields["user-agent"] = nil
            }
            if let language = fields["accept-language"], isPlatformDefaultLanguage(language) {
                fields["accept-language"] = nil
            }
        }
        let text = fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        let bodyText = String(data: body, encoding: .utf8) ?? "\(body.count) bytes"
        return "\(method) \(target) [\(text)] \(bodyText.prefix(60))"
    }
}

// MARK: Client styles

extension ParityClient {
    /// `data(for:)`, the async style.
    func data(_ request: URLRequest) async -> ClientResult {
        do {
            let (data, response) = try await session.data(for: request)
            return ClientResult(response: response, body: data)
        } catch {
            return ClientResult(error: error)
        }
    }

    /// `dataTask(with:completionHandler:)`, the completion-handler style; keeps the task.
    func completion(_ request: URLRequest) async -> ClientResult {
        let box = Shared<ClientResult>(ClientResult())
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let task = session.dataTask(with: request) { data, response, error in
                box.update { $0 = ClientResult(response: response, body: data ?? Data(), error: error, task: $0.task) }
                continuation.resume()
            }
            box.update { $0.task = task }
            task.resume()
        }
        return box.current
    }

    /// A plain data task whose only listener is the session's data delegate; keeps the task.
    func delegate(_ request: URLRequest, cancelAfter: TimeInterval? = nil) async -> ClientResult {
        let task = session.dataTask(with: request)
        task.resume()
        if let cancelAfter {
            try? await Task.sleep(nanoseconds: UInt64(cancelAfter * 1e9))
            task.cancel()
        }
        // Until the delegate heard of the completion, on its own queue, after the task's state changed.
        for _ in 0..<1000 where !(recorder.events.current.last?.hasPrefix("complete") ?? false) {
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return ClientResult(response: task.response, body: recorder.body.current, error: task.error, task: task)
    }

    /// An upload task with `from:` data.
    func upload(_ request: URLRequest, from data: Data) async -> ClientResult {
        do {
            let (body, response) = try await session.upload(for: request, from: data)
            return ClientResult(response: response, body: body)
        } catch {
            return ClientResult(error: error)
        }
    }

    /// An upload task from a file holding `data`.
    func upload(_ request: URLRequest, fromFileWith data: Data) async -> ClientResult {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            try data.write(to: file)
            let (body, response) = try await session.upload(for: request, fromFile: file)
            return ClientResult(response: response, body: body)
        } catch {
            return ClientResult(error: error)
        }
    }
}
