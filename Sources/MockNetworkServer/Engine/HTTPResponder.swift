/// What answers a server's requests.
///
/// The server calls `respond(to:writer:)` once per request, in the order requests arrive on a
/// connection, and takes the connection's next request only after the answer has ended. It calls
/// from the connection's own queue: a responder that must wait (a handler, a delay, a held request)
/// hands the request elsewhere and answers through `writer` later, from any thread.
package protocol HTTPResponder: Sendable {
    /// Answers `request` through `writer`, now or later.
    func respond(to request: HTTPServerRequest, writer: HTTPResponseWriter)
}

/// A responder made of a closure.
package struct ClosureResponder: HTTPResponder {
    private let body: @Sendable (HTTPServerRequest, HTTPResponseWriter) -> Void

    /// A responder that runs `body` for each request.
    package init(_ body: @escaping @Sendable (HTTPServerRequest, HTTPResponseWriter) -> Void) {
        self.body = body
    }

    /// Runs the closure.
    package func respond(to request: HTTPServerRequest, writer: HTTPResponseWriter) {
        body(request, writer)
    }
}
