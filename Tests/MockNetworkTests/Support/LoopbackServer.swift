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
    private struct State {
        var received: [Received] = []
        var stopRequested = false
        var finished = false
    }

    /// A value behind an `NSLock`.
    ///
    /// `@unchecked Sendable` is sound: the only stored state is `value`, and every access to it happens inside
    /// `withLock`, while `lock` is held. (`Synchronization.Mutex` would do the same but needs macOS 15.)
    private final class Protected<Value>: @unchecked Sendable {
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
    private struct Context: Sendable {
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

// MARK: - Platform differences

#if canImport(Glibc)
    /// `SOCK_STREAM` is an enum case (`__socket_type`) in Glibc.
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    /// Writes to a closed peer fail with `EPIPE` instead of raising `SIGPIPE`.
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Musl)
    private let streamSocketType = Int32(SOCK_STREAM)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#else
    private let streamSocketType = Int32(SOCK_STREAM)
    /// Darwin has no `MSG_NOSIGNAL`; sockets get `SO_NOSIGPIPE` instead.
    private let sendFlags: Int32 = 0
#endif

/// The most a single read waits for data before giving up on a connection.
private let ioTimeoutSeconds = 5.0
/// The longest a `poll` waits before checking the deadline and the stop flag again, in milliseconds.
private let pollSliceMilliseconds = 100
/// The most header bytes accepted in one request.
private let maxHeadBytes = 64 * 1024
/// The most body bytes accepted in one request.
private let maxBodyBytes = 64 * 1024 * 1024

private func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
    var value = value
    return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
}

/// Milliseconds from now until `deadline`, at most `cap`, and 0 once it has passed.
private func milliseconds(until deadline: DispatchTime, cap: Int) -> Int {
    let now = DispatchTime.now().uptimeNanoseconds
    let end = deadline.uptimeNanoseconds
    guard end > now else { return 0 }
    return Int(min(UInt64(cap), (end - now + 999_999) / 1_000_000))
}

/// Waits until `fd` is readable; false on timeout, on error, or when `wake` becomes readable first.
private func waitReadable(_ fd: Int32, wake: Int32, milliseconds: Int) -> Bool {
    var descriptors = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    guard poll(&descriptors, 2, Int32(milliseconds)) > 0 else { return false }
    return descriptors[0].revents != 0
}

// MARK: - Listening

extension LoopbackServer {
    private static func openListener() throws -> Int32 {
        let fd = socket(AF_INET, streamSocketType, 0)
        guard fd >= 0 else { throw StartError(operation: "socket(AF_INET, SOCK_STREAM)", code: errno) }

        func fail(_ operation: String) -> StartError {
            let failure = StartError(operation: operation, code: errno)
            _ = close(fd)
            return failure
        }

        guard setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1) else { throw fail("setsockopt(SO_REUSEADDR)") }
        #if canImport(Darwin)
            guard setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1) else { throw fail("setsockopt(SO_NOSIGPIPE)") }
        #endif
        // Non-blocking, so `accept` cannot block if a connection goes away between `poll` and `accept`.
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw fail("fcntl(O_NONBLOCK)") }

        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw fail("bind(127.0.0.1:0)") }
        guard listen(fd, 64) == 0 else { throw fail("listen") }
        return fd
    }

    private static func boundPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw StartError(operation: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The accept loop, on the server's thread. Closes `listener` when it ends.
    private static func serve(listener: Int32, context: Context) {
        defer {
            _ = close(listener)
            context.state.withLock { $0.finished = true }
        }
        var accepted = 0
        while accepted < context.maxRequests, !context.shouldStop {
            let wait = milliseconds(until: context.deadline, cap: pollSliceMilliseconds)
            guard wait > 0 else { return }
            guard waitReadable(listener, wake: context.wake, milliseconds: wait) else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }  // EAGAIN, ECONNABORTED, EINTR...: poll again.
            accepted += 1
            if let reader = serveConnection(client, context: context) {
                // Waiting for the client to close happens beside the next connection, not before it.
                DispatchQueue(label: "LoopbackServer.drain").async {
                    var reader = reader
                    reader.drain(milliseconds: 1000)
                    _ = close(client)
                }
            } else {
                _ = close(client)
            }
        }
    }
}

// MARK: - One connection

extension LoopbackServer {
    private enum Outcome {
        case request(Received)
        case malformed(status: Int, reason: String)
        case closed
    }

    /// Serves one request; returns the reader to drain before closing, once the answer is out.
    private static func serveConnection(_ fd: Int32, context: Context) -> Reader? {
        // Darwin hands out accepted sockets with the listener's O_NONBLOCK; reads here wait with `poll`,
        // writes block (bounded by SO_SNDTIMEO).
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        #if canImport(Darwin)
            _ = setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
        var sendTimeout = timeval()
        sendTimeout.tv_sec = 5
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))

        var reader = Reader(fd: fd, context: context)
        let response: Response
        var sendsBody = true
        switch readRequest(&reader) {
        case .closed:
            return nil
        case .malformed(let status, let reason):
            response = Response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], text: reason)
        case .request(let request):
            // Recorded before answering: a client holding the answer finds its request in `received`.
            context.state.withLock { $0.received.append(request) }
            response =
                context.routes["\(request.method) \(request.target)"]
                ?? Response(
                    status: 404, headers: [("Content-Type", "text/plain; charset=utf-8")],
                    text: "no route for \(request.method) \(request.target)")
            sendsBody = request.method != "HEAD"
        }
        if response.delay > 0 { Thread.sleep(forTimeInterval: min(response.delay, ioTimeoutSeconds)) }
        guard sendAll(encode(response, sendsBody: sendsBody), to: fd) else { return nil }
        // Half-close, then (the caller) read until the client closes, so no unread bytes turn the close
        // into a reset that could destroy the answer before the client reads it.
        _ = shutdown(fd, Int32(SHUT_WR))
        return reader
    }

    private static func readRequest(_ reader: inout Reader) -> Outcome {
        guard let head = reader.readHead() else {
            return reader.buffered == 0 ? .closed : .malformed(status: 400, reason: "incomplete request head")
        }
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
        }
        lines.removeAll { $0.isEmpty }
        guard let requestLine = lines.first else { return .malformed(status: 400, reason: "empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), !parts[0].isEmpty, !parts[1].isEmpty else {
            return .malformed(status: 400, reason: "bad request line: \(requestLine)")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                return .malformed(status: 400, reason: "bad header line: \(line)")
            }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name == name.trimmingCharacters(in: .whitespaces) else {
                return .malformed(status: 400, reason: "bad header name: \(line)")
            }
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }

        let chunked = headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        var length = 0
        if !chunked, let text = headers["content-length"] {
            guard let value = Int(text), value >= 0 else {
                return .malformed(status: 400, reason: "bad Content-Length: \(text)")
            }
            guard value <= maxBodyBytes else { return .malformed(status: 413, reason: "body too large") }
            length = value
        }
        if chunked || length > 0, headers["expect"]?.lowercased() == "100-continue" {
            guard sendAll(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: reader.fd) else { return .closed }
        }
        let body: [UInt8]
        if chunked {
            switch reader.readChunkedBody() {
            case .success(let bytes): body = bytes
            case .failure(let failure): return .malformed(status: failure.status, reason: failure.reason)
            }
        } else {
            guard let bytes = reader.read(count: length) else {
                return .malformed(status: 400, reason: "body shorter than Content-Length \(length)")
            }
            body = bytes
        }
        return .request(
            Received(
                method: String(parts[0]), target: String(parts[1]), headers: headers, body: Data(body)))
    }

    private static func encode(_ response: Response, sendsBody: Bool) -> [UInt8] {
        let status = response.status
        let bodyAllowed = sendsBody && status >= 200 && status != 204 && status != 304
        var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\n"
        let framing: Set<String> = ["content-length", "connection", "transfer-encoding"]
        for (name, value) in response.headers where !framing.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        if status >= 200, status != 204, status != 304 {
            head += "Content-Length: \(response.body.count)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        var bytes = Array(head.utf8)
        if bodyAllowed { bytes.append(contentsOf: response.body) }
        return bytes
    }

    private static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }

    /// Writes all of `bytes`; false when the peer is gone or a write times out.
    private static func sendAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(fd, base + offset, buffer.count - offset, sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}

// MARK: - Reading

extension LoopbackServer {
    private struct BodyFailure: Error {
        let status: Int
        let reason: String
    }

    /// Reads a connection's bytes as they arrive, in however many segments, never waiting past its deadline.
    private struct Reader: Sendable {
        let fd: Int32
        let context: Context
        /// Reading the request gives up at this time: a few seconds after the connection was accepted, or
        /// at the server's own deadline if that comes first.
        let deadline: DispatchTime
        private var buffer: [UInt8] = []

        init(fd: Int32, context: Context) {
            self.fd = fd
            self.context = context
            deadline = min(context.deadline, .now() + ioTimeoutSeconds)
        }

        /// The number of bytes read but not consumed yet.
        var buffered: Int { buffer.count }

        /// Reads more bytes into the buffer; false at end of stream, on error, at the deadline or on stop.
        mutating func fill(until end: DispatchTime? = nil) -> Bool {
            let end = end ?? deadline
            while !context.shouldStop {
                let wait = milliseconds(until: end, cap: pollSliceMilliseconds)
                guard wait > 0 else { return false }
                guard waitReadable(fd, wake: context.wake, milliseconds: wait) else { continue }
                var chunk = [UInt8](repeating: 0, count: 16 * 1024)
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    buffer.append(contentsOf: chunk[..<count])
                    return true
                }
                if count < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return false
            }
            return false
        }

        /// Consumes and returns the bytes up to and including the first `separator`.
        private mutating func take(through separator: [UInt8], limit: Int) -> [UInt8]? {
            var searchFrom = 0
            while true {
                if let end = Self.end(of: separator, in: buffer, from: searchFrom) {
                    defer { buffer.removeFirst(end) }
                    return Array(buffer[..<end])
                }
                guard buffer.count <= limit else { return nil }
                searchFrom = max(0, buffer.count - separator.count + 1)
                guard fill() else { return nil }
            }
        }

        private static func end(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
            guard bytes.count >= pattern.count else { return nil }
            var index = start
            while index + pattern.count <= bytes.count {
                if bytes[index..<index + pattern.count].elementsEqual(pattern) { return index + pattern.count }
                index += 1
            }
            return nil
        }

        /// The request line and headers, through the blank line that ends them.
        mutating func readHead() -> [UInt8]? {
            // Tolerate stray line breaks before the request line (RFC 9112, section 2.2).
            while true {
                if let first = buffer.first {
                    guard first == UInt8(ascii: "\r") || first == UInt8(ascii: "\n") else { break }
                    buffer.removeFirst()
                } else if !fill() {
                    return nil
                }
            }
            return take(through: Array("\r\n\r\n".utf8), limit: maxHeadBytes)
        }

        /// Exactly `count` bytes, or nil when the stream ends first.
        mutating func read(count: Int) -> [UInt8]? {
            while buffer.count < count {
                guard fill() else { return nil }
            }
            defer { buffer.removeFirst(count) }
            return Array(buffer[..<count])
        }

        /// A line without its line break.
        private mutating func readLine() -> String? {
            guard var line = take(through: [UInt8(ascii: "\n")], limit: 8 * 1024) else { return nil }
            line.removeLast()
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            return String(decoding: line, as: UTF8.self)
        }

        /// A body in the chunked transfer coding, decoded; trailer fields are read and dropped.
        mutating func readChunkedBody() -> Result<[UInt8], BodyFailure> {
            var body: [UInt8] = []
            while true {
                guard let sizeLine = readLine() else {
                    return .failure(BodyFailure(status: 400, reason: "chunked body ended early"))
                }
                let sizeText = sizeLine.split(separator: ";", maxSplits: 1).first ?? ""
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                    return .failure(BodyFailure(status: 400, reason: "bad chunk size: \(sizeLine)"))
                }
                if size == 0 { break }
                guard body.count + size <= maxBodyBytes else {
                    return .failure(BodyFailure(status: 413, reason: "body too large"))
                }
                guard let chunk = read(count: size), readLine() == "" else {
                    return .failure(BodyFailure(status: 400, reason: "chunk shorter than its size \(size)"))
                }
                body += chunk
            }
            while true {
                guard let trailer = readLine() else {
                    return .failure(BodyFailure(status: 400, reason: "chunked body ended in its trailer"))
                }
                if trailer.isEmpty { return .success(body) }
            }
        }

        /// Reads and drops bytes until the client closes, for at most `milliseconds`.
        mutating func drain(milliseconds: Int) {
            let end = DispatchTime.now() + .milliseconds(milliseconds)
            while fill(until: end) {
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }
}
