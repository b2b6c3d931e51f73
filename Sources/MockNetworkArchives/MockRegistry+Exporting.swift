import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A registry's traffic as an archive: exporting what it saw, and recording what went to the network.
extension MockRegistry {

    /// What this registry answered, as an archive: every request still in `requests`, with its
    /// body, and the response it got (or, for one that failed, status 0 and the error), redacted.
    ///
    /// Write it with `try mocks.exportedArchive().write(to: url)` and open the file in a
    /// browser's network panel to see a failing test's traffic.
    public func exportedArchive(redaction: HTTPArchive.Redaction = .standard) -> HTTPArchive {
        let exchanges = switchedExchanges
        return HTTPArchive(entries: requests.compactMap { Self.entry(for: $0, unanswered: nil, exchanges: exchanges) })
            .redacted(redaction)
    }

    /// `recorded` as an archive's entry; one not answered yet is left out, unless `unanswered`
    /// says what to note as its error. A WebSocket's handshake (its answer names one of
    /// `exchanges`) is answered `101`, with the socket's messages.
    package static func entry(
        for recorded: RecordedRequest, unanswered: String?, exchanges: (any SwitchedExchanges)? = nil
    ) -> HTTPArchive.Entry? {
        let request = archived(recorded.request, body: recorded.body)
        switch recorded.outcome {
        case .response(let response, let data, let delay):
            if let exchanges, let id = response.value(forHTTPHeaderField: exchanges.field),
                let messages = exchanges.messages(of: id)
            {
                var entry = HTTPArchive.Entry(
                    request: request, response: HTTPArchive.Response(status: 101), startedDateTime: recorded.started)
                entry.webSocketMessages = messages.map(Self.archived)
                return entry
            }
            return HTTPArchive.Entry(
                request: request, response: archived(response, body: data), startedDateTime: recorded.started,
                time: delay * 1000)
        case .failure(let error):
            return HTTPArchive.Entry(
                request: request, response: HTTPArchive.Response(status: 0), startedDateTime: recorded.started,
                error: error)
        case nil:
            guard let unanswered else { return nil }
            return HTTPArchive.Entry(
                request: request, response: HTTPArchive.Response(status: 0), startedDateTime: recorded.started,
                error: unanswered)
        }
    }

    static func archived(_ message: SwitchedMessage) -> HTTPArchive.WebSocketMessage {
        HTTPArchive.WebSocketMessage(
            type: message.fromClient ? "send" : "receive", time: message.time.timeIntervalSince1970,
            opcode: message.isText ? 1 : 2,
            data: message.isText ? String(decoding: message.data, as: UTF8.self) : message.data.base64EncodedString())
    }

    static func archived(_ request: URLRequest, body: Data) -> HTTPArchive.Request {
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        let contentType = fields.first { $0.key.lowercased() == "content-type" }?.value ?? ""
        return HTTPArchive.Request(
            method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "",
            headers: fields.map { HTTPArchive.Header($0.key, $0.value) },
            body: body.isEmpty ? nil : HTTPArchive.Body(body, mimeType: contentType))
    }

    static func archived(_ response: HTTPURLResponse, body: Data) -> HTTPArchive.Response {
        var fields: [(String, String)] = []
        for (name, value) in response.allHeaderFields {
            fields.append(("\(name)", "\(value)"))
        }
        fields.sort { $0.0.lowercased() < $1.0.lowercased() }
        let contentType = fields.first { $0.0.lowercased() == "content-type" }?.1 ?? ""
        return HTTPArchive.Response(
            status: response.statusCode, headers: fields.map { HTTPArchive.Header($0.0, $0.1) },
            body: HTTPArchive.Body(body, mimeType: contentType))
    }
}

extension ArchiveBinding {
    /// Records the exchange the real network answered; the failure to report when writing failed,
    /// or the network did.
    package func networkAnswered(
        _ request: URLRequest, result: Result<(HTTPURLResponse, Data), any Error>, started: Date
    ) -> String? {
        guard isRecording else { return nil }
        switch result {
        case .success(let (response, data)):
            let entry = HTTPArchive.Entry(
                request: MockRegistry.archived(request, body: request.httpBody ?? Data()),
                response: MockRegistry.archived(response, body: data),
                startedDateTime: started, time: Date().timeIntervalSince(started) * 1000)
            guard let error = append(entry) else { return nil }
            return "MockNetwork: could not write the archive \(file.path): \(error.localizedDescription). Check "
                + "that its folder can be written."
        case .failure(let error):
            guard (error as? URLError)?.code != .cancelled else { return nil }
            return "MockNetwork: while recording \(file.path), \(request.httpMethod ?? "GET") "
                + "\(request.url?.absoluteString ?? "") failed on the real network (\(MockRegistry.describe(error))), so "
                + "nothing was recorded for it. Check that the server is up and reachable, then record again."
        }
    }
}
