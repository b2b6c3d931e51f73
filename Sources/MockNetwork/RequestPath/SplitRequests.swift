import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that carries several pieces of content (a GraphQL batch) that no handler answers
/// whole, or that a default (or a backing's entry) would answer whole while a handler of the test's
/// matches one of its pieces: each piece is answered by the handler that matches it alone, and the
/// content's kind joins the answers (a JSON array, in order, as a GraphQL server that takes batches
/// answers).
extension MockRegistry.Core {
    /// The responder for `recorded` when a kind of the registered routes splits it into pieces; `nil`
    /// for any other request. `reading` is the body as the lookup read it (what a kind read is not
    /// read again); registry state is read only when the responder runs.
    func splitResponder(for recorded: RecordedRequest, _ reading: BodyReading, in state: MockRegistry.State)
        -> Responder?
    {
        guard !state.contentIndex.isEmpty, let (kind, pieces) = state.split(recorded, reading) else { return nil }
        return .async { [self] _ in
            var answers: [(headers: [String: String], body: Data)] = []
            for (single, body) in pieces {
                answers.append(try await answerAlone(single, body: body))
            }
            return .mock(try kind.joined(answers))
        }
    }

    /// One piece of a split request, answered by the route that matches it alone: that answer's headers
    /// and body. A failure is recorded where it happened (no handler: the unmatched report), and the
    /// batch fails.
    private func answerAlone(_ request: URLRequest, body: Data) async throws -> ([String: String], Data) {
        let recorded = RecordedRequest(request, body: body)
        enum Pick {
            case chosen(Responder, SourceLocation)
            case exhausted(Int, SourceLocation)
            case none
        }
        let reading = BodyReading(request, body: body)
        let pick: Pick = state.withLock { state in
            guard
                case .route(let route) = state.bestRoute(for: request, url: recorded.url, body: body, reading: reading)
            else {
                return .none
            }
            route.calls += 1
            if route.calls <= route.responders.count {
                return .chosen(route.responders[route.calls - 1].responder(for: reading), route.location)
            }
            if route.repeatsLast, let last = route.responders.last {
                return .chosen(last.responder(for: reading), route.location)
            }
            return .exhausted(route.responders.count, route.location)
        }
        switch pick {
        case .none:
            throw unmatchedError(recorded, backing: nil)
        case .exhausted(let count, let location):
            let error = MockNetworkError.sequenceExhausted(
                request: "\(recorded.method) \(recorded.url.absoluteString)", count: count)
            record(MockFailure(message: error.description, location: location))
            throw URLError(.resourceUnavailable, userInfo: [NSLocalizedDescriptionKey: error.description])
        case .chosen(let responder, let location):
            let reply: Reply
            do {
                switch responder {
                case .sync(let run): reply = try run(request)
                case .async(let run), .held(let run): reply = try await run(request)
                }
            } catch let error as any MockInputError {
                record(MockFailure(message: error.description, location: location))
                throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: error.description])
            }
            switch reply {
            case .http(let response, let data):
                return (response.allHeaderFields as? [String: String] ?? [:], data)
            case .mock(let mock):
                if let error = mock.error {
                    if let location = mock.invalidAt { record(MockFailure(message: "\(error)", location: location)) }
                    throw error
                }
                return (mock.headers, mock.body)
            }
        }
    }
}
