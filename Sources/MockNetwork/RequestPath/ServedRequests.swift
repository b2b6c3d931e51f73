import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a served request's answer is made of, in the order it happens: a head, the body's pieces
/// (at their times), then the end; or, instead, a request no handler matched, or a failure.
package enum ServedEvent: Sendable {
    /// The status and header fields; `length` is the body's, when it is known before it is sent.
    /// The fields leave framing to the server: no `Content-Length`, `Transfer-Encoding` or `Connection`.
    case head(status: Int, headers: [(name: String, value: String)], length: Int?)
    /// The next piece of the body.
    case piece(Data)
    /// The body is complete.
    case end
    /// No handler matched the request: the report recorded for the test, instead of any head.
    case unmatched(report: String)
    /// The answer is an error (a handler threw, a sequence ran out, a body fails part-way): before
    /// the head, instead of it; after it, the body is cut short.
    case failed(any Error)
}

/// Where a served request's client stands, as the door sees it when asked.
package enum ServedClient: Sendable {
    /// It waits for the rest of its answer.
    case waiting
    /// Every byte of its answer was written to it: the answer is complete, whether or not its end has
    /// reached the registry yet.
    case hasAll
    /// It hung up before its answer was all written: the request is over, ended by its client, as a
    /// request whose client leaves a real server is.
    case left
}

extension MockRegistry {
    /// Answers `request` (its body in `body`) as a request on this registry's session would be, for
    /// another door (the HTTP server): logged, looked up, its handler run where handlers run, its
    /// delay waited, its body given over time as its pacing says; a request the registry lets through
    /// to the network (`.passToNetwork`, an archive's recording) is answered with what the network
    /// gave. A redirect is answered as it is, for the client to follow. `emit` gets the answer's
    /// events in order, from any thread; cancel the returned exchange when its client leaves, which
    /// cancels an `async` handler still running.
    ///
    /// `opened` gets the exchange before it starts; `isOwnAddress` says whether a URL is the door's
    /// own, where a request let through to the network would come straight back; `client` says where
    /// the request's client stands now, without waiting: the server's stop and the end of a test ask
    /// it before they call the request cut short or still in flight.
    ///
    /// A request forwarded by an app under test (`forwarded`) never goes to the network: one the
    /// registry would let through is answered as unmatched, and the test fails saying why.
    package func answerServed(
        _ request: URLRequest, body: Data, forwarded: Bool = false,
        isOwnAddress: @escaping @Sendable (URL) -> Bool = { _ in false },
        client: @escaping @Sendable () -> ServedClient = { .waiting },
        opened: (ServedExchange) -> Void = { _ in }, emit: @escaping @Sendable (ServedEvent) -> Void
    ) -> ServedExchange {
        let exchange = ServedExchange(
            core: core, request: request, forwarded: forwarded, isOwnAddress: isOwnAddress, client: client,
            emit: emit)
        opened(exchange)
        exchange.start(MockRegistry.Chain(request, body: body))
        return exchange
    }

    /// Keeps `message` as a failure of this registry's test, for a served request that no handler may
    /// see (an app's forwarded request with a wrong secret): reported when the test ends.
    package func recordServedFailure(_ message: String) {
        core.record(MockFailure(message: message, location: nil))
    }
}

extension ServedExchange {
    /// Emits the pieces that are due, then the end, the fault, or a wait for the next piece.
    func sendDue(_ stream: BodyStream) {
        var stream = stream
        while !isCancelled {
            switch stream.step(now: .now()) {
            case .piece(let data):
                if !data.isEmpty { emit(.piece(data)) }
            case .finish:
                emit(.end)
                return
            case .fail(let error):
                emit(.failed(error))
                return
            case .wait(let due):
                after(due) { [self, stream] in sendDue(stream) }
                return
            case .none:
                return
            }
        }
    }

    /// A response's fields as a server sends them, in a stable order, framing left to the server.
    static func fields(of response: HTTPURLResponse) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        for (key, value) in response.allHeaderFields {
            guard let name = key as? String, let value = value as? String else { continue }
            if ["content-length", "transfer-encoding", "connection"].contains(name.lowercased()) { continue }
            fields.append((name, value))
        }
        return fields.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// What the network answered, as this server passes it on: URLSession gave the body decoded, so
    /// the `Content-Encoding` it came in (and its length) no longer describe it.
    static func decoded(
        _ result: Result<(HTTPURLResponse, Data), any Error>
    ) -> Result<(HTTPURLResponse, Data), any Error> {
        guard case .success(let (response, data)) = result, let url = response.url,
            response.value(forHTTPHeaderField: "Content-Encoding") != nil
        else { return result }
        // The fields a server sends (no framing), less the coding.
        let kept = fields(of: response).filter { $0.name.lowercased() != "content-encoding" }
        let fields = Dictionary(kept.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard
            let passed = HTTPURLResponse(
                url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
        else { return result }
        return .success((passed, data))
    }
}
