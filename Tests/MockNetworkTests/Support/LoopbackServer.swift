import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on `127.0.0.1`, for tests that must reach a real socket (record mode, for one).
///
/// It listens on an ephemeral port, answers every request from a fixed table of routes, records what it
/// received, and closes each connection after one answer (`Connection: close`). It handles one connection at
/// a time on its own thread, and it is bounded: it stops by itself after `maxRequests` connections or
/// `lifetime` seconds, whichever comes first, and every read waits at most a few seconds, so a test that
/// forgets it cannot hang. Only the platform's sockets are used (no third-party code).
///
/// ```swift
/// let server = try LoopbackServer(routes: ["GET /users/1": .init(status: 200, text: "{}")])
/// defer { server.stop() }
/// let (data, _) = try await URLSession(configuration: .ephemeral)
///     .data(from: server.baseURL.appendingPathComponent("users/1"))
/// ```
final class LoopbackServer: Sendable {
    /// An answer the server sends for a route.
    ///
    /// The server always adds `Connection: close` and, except for statuses 1xx, 204 and 304, `Content-Length`;
    /// headers of those names (and `Transfer-Encoding`) given here are left out, so the framing stays correct.
    struct Response: Sendable {
        /// The HTTP status code, such as 200.
        var status: Int
        /// Header fields in the order they are sent.
        var headers: [(String, String)]
        /// The body bytes (not sent for `HEAD` requests or statuses 1xx, 204 and 304).
        var body: Data
        /// Seconds the server waits before answering (at most the connection's read timeout).
        var delay: TimeInterval

        /// An answer with the given status, headers and body bytes.
        init(status: Int = 200, headers: [(String, String)] = [], body: Data = Data(), delay: TimeInterval = 0) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }

        /// An answer whose body is `text` in UTF-8.
        init(status: Int = 200, headers: [(String, String)] = [], text: String, delay: TimeInterval = 0) {
            self.init(status: status, headers: headers, body: Data(text.utf8), delay: delay)
        }
    }

    /// A request the server read completely, in the order it arrived.
    struct Received: Sendable, Equatable {
        /// The method, as sent (`GET`, `POST`, ...).
        let method: String
        /// The request target exactly as sent on the request line, such as `/users?page=2`.
        let target: String
        /// Header fields by lowercased name; repeated fields are joined with `", "`.
        let headers: [String: String]
        /// The body, with any chunked transfer coding removed.
        let body: Data

        /// The value of the header field `name`, whatever its case.
        func header(_ name: String) -> String? {
            headers[name.lowercased()]
        }
    }

    /// Why the server could not start: the socket call that failed, and the system's error.
    struct StartError: Error, CustomStringConvertible {
        /// The call that failed, such as `bind(127.0.0.1:0)`.
        let operation: String
        /// The `errno` value after the failure (0 when none applies).
        let code: Int32

        /// A readable account of the failure.
        var description: String {
            guard code != 0 else { return "LoopbackServer: \(operation) failed" }
            return "LoopbackServer: \(operation) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    /// The TCP port the server listens on, on `127.0.0.1`.
    let port: Int

    /// `http://127.0.0.1:<port>`, with no trailing slash.
    let baseURL: URL

    private let state: Protected<State>
    private let finished: DispatchGroup
    /// A pipe whose read end the server's thread polls next to its sockets; `stop()` writes a byte to wake it.
    /// Both ends stay open until `deinit`, so `stop()` never writes to a closed (or reused) descriptor.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Starts a server answering `routes` on an ephemeral port of `127.0.0.1`.
    ///
    /// - Parameters:
    ///   - routes: Answers keyed by `"METHOD target"`, with the target exactly as the client sends it on the
    ///     request line, such as `"GET /users/1"` or `"GET /search?q=dogs"`. A request matching no key gets
    ///     404 with the body `no route for METHOD target`.
    ///   - maxRequests: The number of connections after which the server stops by itself.
    ///   - lifetime: The number of seconds after which the server stops by itself.
    /// - Throws: ``StartError`` when the socket cannot be created, bound or listened on.
    init(routes: [String: Response], maxRequests: Int = 32, lifetime: TimeInterval = 20) throws {
        let listener = try Self.openListener()
        let port: Int
        do {
            port = try Self.boundPort(of: listener)
        } catch {
            _ = close(listener)
            throw error
        }
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            _ = close(listener)
            throw StartError(operation: "URL(http://127.0.0.1:\(port))", code: 0)
        }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            let failure = StartError(operation: "pipe", code: errno)
            _ = close(listener)
            throw failure
        }
        self.port = port
        self.baseURL = baseURL
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]

        // A lifetime that is not a positive number stops the server at once; an enormous one is capped so the
        // deadline arithmetic cannot overflow.
        let seconds = lifetime > 0 ? min(lifetime, 7 * 24 * 3600) : 0
        let context = Context(
            routes: routes, maxRequests: maxRequests, deadline: .now() + seconds, wake: wakeRead,
            state: Protected(State()))
        state = context.state
        finished = DispatchGroup()
        let finished = finished
        finished.enter()
        let thread = Thread {
            Self.serve(listener: listener, context: context)
            finished.leave()
        }
        thread.name = "LoopbackServer:\(port)"
        thread.start()
    }

    deinit {
        stop()
        _ = close(wakeRead)
        _ = close(wakeWrite)
    }

    /// Every request read so far, oldest first.
    ///
    /// A request is recorded before its answer is written, so once a client has the answer, the request is
    /// already here.
    var received: [Received] {
        state.withLock { $0.received }
    }

    /// Whether the server still accepts connections (false once stopped, by ``stop()`` or by its bounds).
    var isRunning: Bool {
        state.withLock { !$0.finished }
    }

    /// Stops accepting connections, closes the listening socket and waits for the server's thread to end.
    ///
    /// A connection being served is cut short. Calling this again, or from several threads, is harmless.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
        finished.wait()
    }

    /// A URL on this server for `target`, the path and optional query as they should appear on the request line
    /// (`"/users?page=2"`), or nil when `baseURL` followed by `target` is no URL.
    func url(_ target: String) -> URL? {
        URL(string: baseURL.absoluteString + target)
    }
}

// MARK: - Shared state

extension LoopbackServer {
    /// The server's mutable state, shared by its thread and its callers.
    struct State {
        var received: [Received] = []
        var stopRequested = false
        var finished = false
    }

    /// A value behind an `NSLock`.
    ///
    /// `@unchecked Sendable` is sound: the only stored state is `value`, and every access to it happens inside
    /// `withLock`, while `lock` is held. (`Synchronization.Mutex` would do the same but needs macOS 15.)
    final class Protected<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value

        init(_ value: Value) {
            self.value = value
        }

        func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
            lock.lock()
            defer { lock.unlock() }
            return body(&value)
        }
    }

    /// What the server's thread needs; it holds no reference to the server, so `deinit` can run and stop it.
    struct Context: Sendable {
        let routes: [String: Response]
        let maxRequests: Int
        let deadline: DispatchTime
        /// The read end of the wake-up pipe: readable once `stop()` was called.
        let wake: Int32
        let state: Protected<State>

        var shouldStop: Bool {
            state.withLock { $0.stopRequested }
        }
    }
}
