import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What answering a request works with: a route's responders and replies, the answer the protocol
/// delivers, the chain of redirects a request is in, and a route picked whose responder is still to run.
extension MockRegistry {
    package enum Reply: Sendable {
        case http(HTTPURLResponse, Data)
        case mock(MockResponse)
    }

    /// What answers a route's request: a synchronous closure, run where handlers run, or an `async`
    /// one, run in a task of its own that is cancelled when the request ends first.
    package enum Responder: Sendable {
        case sync(@Sendable (URLRequest) throws -> Reply)
        case async(@Sendable (URLRequest) async throws -> Reply)
        /// `hold(_:)`'s: an async responder whose request waits for the test, not for user code.
        case held(@Sendable (URLRequest) async throws -> Reply)

        var isAsync: Bool {
            if case .sync = self { return false }
            return true
        }
    }

    /// What a route keeps to answer with: a responder as it is, or, for a handler that takes what a
    /// product reads of the body (a GraphQL operation), a responder made for each request from what
    /// its lookup read, so that the body is parsed once a request, not again for the handler.
    package enum RouteResponder: Sendable {
        case fixed(Responder)
        /// `make` gets what the lookup read of the body (``BodyReading/cache``: empty when no rule
        /// read it, and the responder then reads it itself, where it runs).
        case readingBody(isAsync: Bool, make: @Sendable (_ read: [ObjectIdentifier: any Sendable]) -> Responder)

        var isAsync: Bool {
            switch self {
            case .fixed(let responder): return responder.isAsync
            case .readingBody(let isAsync, _): return isAsync
            }
        }

        /// The responder for a request whose lookup read `reading`.
        func responder(for reading: BodyReading) -> Responder {
            switch self {
            case .fixed(let responder): return responder
            case .readingBody(_, let make): return make(reading.cache)
            }
        }
    }

    /// What the protocol delivers for one request.
    struct Answer: Sendable {
        var result: Result<(HTTPURLResponse, Data), any Error>
        var delay: TimeInterval = 0
        var chunkSize: Int?
        /// How the body arrives over time, when it does not all at once.
        var pacing: BodyPacing?
        /// The request goes to the real network (`Unmatched.passToNetwork`, or an archive recording).
        var passToNetwork = false
        /// The request's number in the log, for what the network answers it.
        var logNumber = 0
        /// The request this answers, after any redirects: what goes to the network on a pass-through.
        var request: URLRequest?
        /// For a redirect to follow: the chain at the request it leads to. The protocol asks the session
        /// delegate (or, on Apple platforms, Foundation) whether to follow it; the answer itself is the
        /// redirect response, delivered as it is when the redirect is not followed.
        var next: Chain?
        /// For a request no handler matched: the report recorded for it, which a served answer sends.
        var unmatchedReport: String?
    }

    /// A request on its way through the handlers: where it stands in a chain of redirects.
    struct Chain: Sendable {
        var request: URLRequest {
            didSet { bodyRead = [:] }
        }
        var body: Data {
            didSet { bodyRead = [:] }
        }
        /// What a lookup of this request read of its body (a GraphQL operation: ``BodyReading/cache``),
        /// for the next lookup (after an `inline` one met a `.when` predicate) and the handler: the
        /// body is parsed once.
        var bodyRead: [ObjectIdentifier: any Sendable] = [:]
        /// The URL the chain started at, for messages about the whole chain.
        let firstURL: URL?
        var hops = 0
        /// The step an `inline` pass picked and logged but left to run elsewhere: its responder is user code.
        var picked: Picked?

        /// A chain that starts at `request`, or goes on where `trail` says an earlier protocol
        /// instance left it (on Apple platforms each followed redirect is loaded by a new one).
        init(_ request: URLRequest, body: Data, trail: RedirectTrail? = nil) {
            self.request = request
            self.body = body
            self.firstURL = trail?.firstURL ?? request.url
            self.hops = trail?.hops ?? 0
        }

        /// Where the chain stands, for the protocol instance that loads its request next.
        var trail: RedirectTrail { RedirectTrail(hops: hops, firstURL: firstURL) }
    }

    static let redirectLimit = 16

    /// A route picked for a request (and the request logged), whose responder is still to run.
    struct Picked: Sendable {
        let recorded: RecordedRequest
        let responder: Responder
        let location: SourceLocation
        let number: Int
        /// What an async responder gave, once it has run.
        var awaited: Result<Reply, any Error>?
    }
}
