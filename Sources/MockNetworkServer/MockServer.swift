import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A registry served over HTTP/1.1 on 127.0.0.1: clients that are not the registry's `session`
/// (a plain `URLSession`, `curl`, another HTTP client) get the answers its handlers give.
///
/// Every request is answered as a request on the registry's session would be: it is logged
/// (`requests`, `requests(matching:)`, `nextRequest`), its handler runs where handlers run (sync and
/// `async` handlers, templates, sequences, `hold`), its delay passes, and a body over time
/// (`.streamed`, `.events`, `.throttled`) goes out in chunks at its times. A request no handler
/// matches gets `404` with MockNetwork's report as its body, and the registry keeps the failure
/// for the test, as it does for its session. A redirect goes to the client; one to an origin the
/// server answers as points back at the server, so a client following it never leaves loopback.
///
/// Handlers are registered for the URLs the client believes it calls. A server started "as" one or
/// more origins gives each request the URL of that origin with the request's path and query; a
/// `Host` field naming one of them picks it, else the first is taken. With no origin, a request's
/// URL is on the server's own ``url``.
///
/// ```swift
/// let mocks = MockRegistry()
/// mocks.register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
/// let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
/// defer { server.stop() }
/// // GET \(server.url)/user answers {"name": "Ada"}
/// ```
///
/// Under the `.mockNetwork` trait and in a `MockNetworkTestCase`, a server serving the test's
/// registry stops when the test ends, after its failures are reported; elsewhere call ``stop()``
/// (in `tearDown`, or with `defer`), or release the server.
///
/// A UI test's app can send every request here too, with its original URL: see ``launchEnvironment``.
///
/// It holds the other end of a client's WebSocket too: the registry's socket handlers
/// (`mocks.webSocket(…)`) answer a handshake for their URL, and the test reads and writes the
/// socket as ``MockWebSocket``. See <doc:WebSockets>.
///
/// What the handlers see: the method, the header fields but those that frame the connection
/// (`Host`, `Connection`, `Content-Length`, `Transfer-Encoding`, `Expect` and the like), and the body.
/// An error a handler throws (other than a `MockNetworkError`) closes the connection without an
/// answer, the nearest a server comes to a failed network; a `MockNetworkError` is answered `500`
/// with its text. A request the registry lets through to the network (`unmatched: .passToNetwork`,
/// an archive that records) goes there, and its client gets what the network answered.
public final class MockServer: Sendable, StopsWithTest {
    /// The registry whose handlers answer.
    public let registry: MockRegistry
    /// The origins the server answers as (`https://api.example.com`), in the order given.
    public let origins: [URL]
    /// `http://127.0.0.1:<port>`: where clients send their requests.
    public let url: URL
    /// The port it listens on.
    public let port: Int
    /// What an app's forwarded requests must carry (``launchEnvironment``): 32 random bytes, in hex.
    let secret: String
    private let server: HTTPServer
    private let responder: RegistryResponder

    /// An origin given to ``MockServer/init(serving:as:limits:)`` that is not a scheme and a host
    /// (with an optional port), such as `https://api.example.com`.
    public struct InvalidOrigin: Error, CustomStringConvertible {
        /// The origin as given.
        public let origin: String

        /// Says what is wrong.
        public var description: String {
            "MockServer: \"\(origin)\" is not an origin; give a scheme and a host, such as \"https://api.example.com\"."
        }
    }

    /// The server could not listen on 127.0.0.1: the socket call that failed, and its `errno`.
    ///
    /// In a sandboxed macOS process (an app that hosts the tests, with App Sandbox on), `bind` fails
    /// with `EPERM` unless the process has the entitlement `com.apple.security.network.server`; the
    /// ``description`` then says to add it.
    public struct ListenError: Error, CustomStringConvertible, LocalizedError {
        /// The call that failed, such as `bind(127.0.0.1:0)`.
        public let operation: String
        /// The `errno` it failed with.
        public let code: Int32

        /// What failed, and for a refused `bind`, the entitlement a sandboxed macOS process needs.
        public var description: String {
            let failed =
                "MockServer: could not listen on 127.0.0.1: \(operation) failed: "
                + "\(String(cString: strerror(code))) (errno \(code))."
            guard operation.hasPrefix("bind"), code == EPERM else { return failed }
            return failed
                + " A sandboxed macOS process (an app that hosts the tests, with App Sandbox on) may listen only "
                + "with the entitlement com.apple.security.network.server: add it to the entitlements of the test "
                + "host's debug build (an app that connects to the server needs com.apple.security.network.client)."
        }

        /// The ``description``.
        public var errorDescription: String? { description }
    }

    /// Starts serving `registry` on a free port of 127.0.0.1 (never another interface).
    ///
    /// - Parameters:
    ///   - registry: the registry whose handlers answer, whose log records the requests and which
    ///     keeps the failures for the test.
    ///   - origins: the origins the requests' URLs are rebuilt on, such as `https://api.example.com`;
    ///     none for the server's own ``url``.
    ///   - limits: what the server takes from its clients (header and body size, connections, idle time).
    /// - Throws: ``InvalidOrigin``, or ``ListenError`` when the socket could not listen (in a sandboxed
    ///   macOS process without the entitlement `com.apple.security.network.server`, for one).
    public convenience init(
        serving registry: MockRegistry, as origins: [String] = [], limits: HTTPServerLimits = HTTPServerLimits()
    ) throws {
        try self.init(serving: registry, as: origins, limits: limits, failingBind: nil)
    }

    /// As ``init(serving:as:limits:)``; `failingBind` is an `errno` for `bind` to fail with, instead
    /// of binding: MockNetwork's tests give the `EPERM` of a sandboxed macOS process.
    init(serving registry: MockRegistry, as origins: [String], limits: HTTPServerLimits, failingBind: Int32?) throws {
        let served = try origins.map { text in
            guard let origin = ServedOrigin(text) else { throw InvalidOrigin(origin: text) }
            return origin
        }
        secret = Self.newSecret()
        responder = RegistryResponder(registry: registry, origins: served, secret: secret, limits: limits)
        do {
            server = try HTTPServer(limits: limits, responder: responder, failingBind: failingBind)
        } catch let failure as Socket.Failure {
            throw ListenError(operation: failure.operation, code: failure.code)
        }
        responder.setOwnOrigin(ServedOrigin("http://127.0.0.1:\(server.port)")!)
        self.registry = registry
        self.origins = served.map(\.url)
        url = server.baseURL
        port = server.port
        registry.stopWithTest(self)
        // The registry's sockets' book, so a socket no handler matches is shown the socket's fix.
        _ = WebSocketBook.of(registry)
    }

    deinit { stop() }

    /// Stops listening (the port is closed when this returns) and closes every connection: answers
    /// in progress are cut short and their `async` handlers cancelled, and each is a failure of the
    /// registry's test (await every request before the server stops), reported when the test ends.
    /// Each WebSocket still open gives its client a quarter of a second to close it; then it fails the
    /// test (as left open) and gets a close frame with 1001 (going away), and its handler is
    /// cancelled when its connection closes.
    ///
    /// A request whose client hung up is over, as on a real server: no failure. A client that gave up
    /// (its timeout passed, its task was cancelled) closes its connection a moment after the test
    /// hears of it, so the connection of an unfinished answer is given 25 ms to be closed by its
    /// client before the answer counts as cut short; this call does not wait for it. An answer whose
    /// last byte was sent is complete. Safe to call more than once.
    public func stop() {
        responder.closeSockets(grace: Self.socketGrace)
        responder.stopServing()
        server.stop(grace: Self.hangUpGrace)
    }

    /// How long a WebSocket's client has to close it when the server stops or the test ends,
    /// before the socket counts as left open: a client that closed its socket just before has its
    /// close frame on the way.
    static let socketGrace: TimeInterval = 0.25

    /// How long a connection whose answer the stop leaves unfinished waits for its client to hang
    /// up, before the answer counts as cut short: a client that just gave up on its answer (its
    /// timeout passed) closes a moment after the test hears of it. Shorter than the 50 ms the end of
    /// a test gives requests to end, so the test hears which it was.
    static let hangUpGrace: TimeInterval = 0.025

    /// A URL on this server: `path` (with any query) resolved against ``url``.
    public func url(_ path: String) -> URL {
        URLText.url(path, relativeTo: url)?.absoluteURL ?? url
    }
}
