import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry.Core {
    typealias Answer = MockRegistry.Answer
    typealias Chain = MockRegistry.Chain
    typealias Reply = MockRegistry.Reply
    typealias Responder = MockRegistry.Responder
    typealias RouteResponder = MockRegistry.RouteResponder
    typealias Route = MockRegistry.Route
    typealias CachedResponse = MockRegistry.CachedResponse

    /// Records the chain's request and answers it from the handlers. A redirect to follow comes back
    /// with ``MockRegistry/Answer/next``, the chain at the request it leads to: call this again with it.
    ///
    /// With `inline` (on Foundation's queue, where no user code may run), it stops before the first
    /// step that would run user code (a handler, a `.when` predicate) or build an unmatched report,
    /// and returns `nil` with `chain` where it stopped: call it again, without `inline`, elsewhere.
    /// It also returns `nil` when the step's responder is `async`, with `chain.picked` holding it:
    /// run it, put what it gave in `chain.picked.awaited`, and call this again.
    func answer(_ chain: inout Chain, inline: Bool = false) -> Answer? {
        if chain.hops <= MockRegistry.redirectLimit {
            let found: (answer: Answer, follow: Bool)?
            if let picked = chain.picked {
                // An async responder runs in a task of its own: the caller starts it (``startAsync``).
                if picked.responder.isAsync, picked.awaited == nil { return nil }
                chain.picked = nil
                found = settled(
                    picked.number,
                    reply(to: picked.recorded, chosen: (picked.responder, picked.location), awaited: picked.awaited))
            } else {
                found = answerOnce(&chain, inline: inline)
            }
            guard let step = found else { return nil }
            guard case .success(let (response, _)) = step.answer.result, step.follow,
                [301, 302, 303, 307, 308].contains(response.statusCode),
                let location = response.value(forHTTPHeaderField: "Location"),
                let next = URLText.url(location, relativeTo: response.url ?? chain.request.url)?.absoluteURL
            else {
                var answer = step.answer
                answer.request = chain.request
                return answer
            }
            // Each redirect is a step of its own: its delay passes, and the session delegate is asked,
            // before the request it leads to is made (and its handler runs), as on the wire.
            var answer = step.answer
            answer.request = chain.request
            var following = chain
            following.hops += 1
            let method = following.request.httpMethod ?? "GET"
            let becomesGET =
                (response.statusCode == 303 && method != "HEAD")
                || ([301, 302].contains(response.statusCode) && method == "POST")
            following.request.url = next
            if becomesGET {
                // As Foundation does: the body goes, the other header fields stay.
                following.request.httpMethod = "GET"
                following.request.httpBody = nil
                following.body = Data()
                following.request.setValue(nil, forHTTPHeaderField: "Content-Length")
            }
            answer.next = following
            return answer
        }
        return Answer(
            result: .failure(
                URLError(
                    .httpTooManyRedirects,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: more than \(MockRegistry.redirectLimit) redirects, starting at "
                            + "\(chain.firstURL?.absoluteString ?? "?")."
                    ])))
    }

    /// One step: the best route's answer, or `nil` when `inline` and the step needs user code.
    private func answerOnce(_ chain: inout Chain, inline: Bool) -> (answer: Answer, follow: Bool)? {
        let (request, body) = (chain.request, chain.body)
        let recorded = RecordedRequest(request, body: body)
        var number = 0
        typealias Chosen = (responder: Responder, location: SourceLocation)
        enum Pick {
            case chosen(Chosen)
            /// Chosen, but its responder is user code: it runs elsewhere.
            case deferred(Chosen)
            case exhausted(count: Int, location: SourceLocation)
            case unmatched
            case userCode
        }
        // What an earlier lookup of this request read (an inline one stopped by a `.when`), kept for
        // the next lookup and the handler: the body is parsed once.
        let reading = BodyReading(request, body: body, cache: chain.bodyRead)
        defer { chain.bodyRead = reading.cache }
        let pick: Pick = state.withLock { state in
            let found = state.bestRoute(for: request, url: recorded.url, body: body, reading: reading, inline: inline)
            let route: Route
            switch found {
            case .userCode: return .userCode
            case .none:
                if inline { return .userCode }
                number = state.logRequest(recorded)
                // A GraphQL batch: each operation by its own handler (`SplitRequests.swift`).
                if !unmatched.passes(recorded.url), state.backing?.sendsUnmatchedToNetwork != true,
                    let split = splitResponder(for: recorded, reading, in: state)
                {
                    return .deferred((split, SourceLocation()))
                }
                return .unmatched
            case .route(let best):
                // A batch a default would take whole, one of whose operations a handler of the test's
                // matches: operation by operation, as with no default (`SplitRequests.swift`).
                switch state.splitWay(outranking: best, recorded, reading: reading, inline: inline) {
                case .userCode: return .userCode
                case .byPiece:
                    if let split = splitResponder(for: recorded, reading, in: state) {
                        number = state.logRequest(recorded)
                        return .deferred((split, SourceLocation()))
                    }
                case .whole: break
                }
                route = best
            }
            number = state.logRequest(recorded)
            route.calls += 1
            let index = route.calls - 1
            let chosen: Chosen
            if index < route.responders.count {
                chosen = (route.responders[index].responder(for: reading), route.location)
            } else if route.repeatsLast, let last = route.responders.last {
                chosen = (last.responder(for: reading), route.location)
            } else {
                return .exhausted(count: route.responders.count, location: route.location)
            }
            return (inline && route.runsUserCode) || chosen.responder.isAsync ? .deferred(chosen) : .chosen(chosen)
        }
        let step: (answer: Answer, follow: Bool)
        switch pick {
        case .userCode: return nil
        case .deferred(let chosen):
            chain.picked = MockRegistry.Picked(
                recorded: recorded, responder: chosen.responder, location: chosen.location, number: number)
            return nil
        case .chosen(let chosen): step = reply(to: recorded, chosen: chosen, awaited: nil)
        case .exhausted(let count, let location):
            let error = MockNetworkError.sequenceExhausted(
                request: "\(recorded.method) \(recorded.url.absoluteString)", count: count)
            record(MockFailure(message: error.description, location: location))
            step = (Answer(result: .failure(error)), false)
        case .unmatched:
            let backing = state.withLock { $0.backing }
            if unmatched.passes(recorded.url) || backing?.sendsUnmatchedToNetwork == true {
                return (Answer(result: .failure(URLError(.unknown)), passToNetwork: true, logNumber: number), false)
            }
            let (error, report) = unmatchedFailure(recorded, backing: backing)
            step = (Answer(result: .failure(error), unmatchedReport: report), false)
        }
        return settled(number, step)
    }

    /// Notes in the log what the request numbered `number` got, and passes that on.
    private func settled(_ number: Int, _ step: (answer: Answer, follow: Bool)) -> (answer: Answer, follow: Bool) {
        switch step.answer.result {
        case .success(let (response, data)):
            settle(number, .response(response, data, delay: step.answer.delay))
        case .failure(let error):
            settle(number, .failure(MockRegistry.describe(error)))
        }
        return step
    }

    private func reply(
        to recorded: RecordedRequest, chosen: (responder: Responder, location: SourceLocation),
        awaited: Result<Reply, any Error>?
    ) -> (answer: Answer, follow: Bool) {
        let url = recorded.url
        let reply: Reply
        do {
            if let awaited {
                reply = try awaited.get()
            } else if case .sync(let responder) = chosen.responder {
                reply = try responder(recorded.request)
            } else {
                throw CancellationError()  // (never: an async responder's answer comes in `awaited`)
            }
        } catch let error as any MockInputError {
            record(MockFailure(message: error.description, location: chosen.location))
            return (Answer(result: .failure(error)), false)
        } catch {
            return (Answer(result: .failure(error)), false)
        }
        switch reply {
        case .http(let response, let data):
            guard MockResponse.finalStatuses.contains(response.statusCode) else {
                let error = MockNetworkError.invalidStatusCode(response.statusCode)
                record(MockFailure(message: error.description, location: chosen.location))
                return (Answer(result: .failure(error)), false)
            }
            guard response.url.map({ URLKeys.key($0, .exact) }) == URLKeys.key(url, .exact) else {
                let error = MockNetworkError.responseURLMismatch(
                    request: url.absoluteString, response: response.url?.absoluteString ?? "(no URL)")
                record(MockFailure(message: error.description, location: chosen.location))
                return (Answer(result: .failure(error)), false)
            }
            return (Answer(result: .success((response, data))), true)
        case .mock(let mock):
            if let error = mock.error {
                // A builder given input it cannot use: the test fails where the builder was called.
                if let location = mock.invalidAt { record(MockFailure(message: "\(error)", location: location)) }
                return (Answer(result: .failure(error), delay: mock.delay), false)
            }
            if let check = mock.requestCheck, let error = check.check(recorded) {
                record(MockFailure(message: "\(error)", location: check.location))
                return (Answer(result: .failure(error), delay: mock.delay), false)
            }
            guard let response = httpResponse(url, mock) else {
                return (Answer(result: .failure(URLError(.badServerResponse))), false)
            }
            return (
                Answer(
                    result: .success((response, Self.body(of: mock, method: recorded.method))), delay: mock.delay,
                    chunkSize: mock.chunkSize,
                    // A response without a body (HEAD, 204, 304) has nothing to send over time.
                    pacing: Self.hasNoBody(mock, method: recorded.method) ? nil : mock.pacing),
                mock.followsRedirects
            )
        }
    }

    /// The headers a server sends for `mock`: a `Content-Length` unless the handler set one, except
    /// for 204 and 304, which have no body (a `HEAD` response keeps the length of the body it leaves out).
    static func framedHeaders(_ mock: MockResponse) -> [String: String] {
        if mock.status == 204 || mock.status == 304 || mock.pacing?.sendsLength == false { return mock.headers }
        var headers = mock.headers
        // (`caseInsensitiveCompare` goes through NSString on Linux: thousands of instructions a key.)
        if !headers.keys.contains(where: { $0.utf8.count == 14 && $0.lowercased() == "content-length" }) {
            headers["Content-Length"] = String(mock.body.count)
        }
        return headers
    }

    /// The body a server sends for `mock`: none for `HEAD`, 204 and 304.
    static func body(of mock: MockResponse, method: String) -> Data {
        hasNoBody(mock, method: method) ? Data() : mock.body
    }

    static func hasNoBody(_ mock: MockResponse, method: String) -> Bool {
        mock.status == 204 || mock.status == 304 || method == "HEAD"
    }

    /// Notes in the log what the request numbered `number` got.
    func settle(_ number: Int, _ outcome: RecordedRequest.Outcome) {
        state.withLock { $0.settle(number, outcome) }
    }

    /// An `HTTPURLResponse`, reused while a URL keeps getting the same status and headers:
    /// on Linux, making one with a `Content-Type` costs more than the rest of a request's answer.
    /// (The response is immutable, so handing the same one to several requests is safe.)
    private func httpResponse(_ url: URL, _ mock: MockResponse) -> HTTPURLResponse? {
        let key = url.absoluteString
        let cached = state.withLock { $0.responses[key] }
        let sendsLength = mock.pacing?.sendsLength ?? true
        if let cached, cached.status == mock.status, cached.length == mock.body.count,
            cached.sendsLength == sendsLength,
            cached.headers == mock.headers
        {
            return cached.response
        }
        guard
            let response = HTTPURLResponse(
                url: url, statusCode: mock.status, httpVersion: "HTTP/1.1", headerFields: Self.framedHeaders(mock))
        else { return nil }
        state.withLock { state in
            if state.responses.count >= 1_000 { state.responses.removeAll(keepingCapacity: true) }
            state.responses[key] = CachedResponse(
                status: mock.status, headers: mock.headers, length: mock.body.count, sendsLength: sendsLength,
                response: response)
        }
        return response
    }
}

extension MockRegistry {
    package static func describe(_ error: any Error) -> String {
        if let error = error as? any MockInputError { return error.description }
        if let error = error as? URLError {
            return "URLError(\(error.code.rawValue)): \(error.localizedDescription)"
        }
        return "\(type(of: error)): \(error.localizedDescription)"
    }
}
