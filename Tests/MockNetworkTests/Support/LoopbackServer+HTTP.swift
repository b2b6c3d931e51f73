import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// One connection's HTTP/1.1: reading a request (head and body, bounded) and writing the answer.

extension LoopbackServer {
    enum Outcome {
        case request(Received)
        case malformed(status: Int, reason: String)
        case closed
    }

    /// Serves one request; returns the reader to drain before closing, once the answer is out.
    static func serveConnection(_ fd: Int32, context: Context) -> Reader? {
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

    static func readRequest(_ reader: inout Reader) -> Outcome {
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

    static func encode(_ response: Response, sendsBody: Bool) -> [UInt8] {
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

    static func reasonPhrase(_ status: Int) -> String {
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
    static func sendAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
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
    struct BodyFailure: Error {
        let status: Int
        let reason: String
    }

    /// Reads a connection's bytes as they arrive, in however many segments, never waiting past its deadline.
    struct Reader: Sendable {
        let fd: Int32
        let context: Context
        /// Reading the request gives up at this time: a few seconds after the connection was accepted, or
        /// at the server's own deadline if that comes first.
        let deadline: DispatchTime
        var buffer: [UInt8] = []

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
        mutating func take(through separator: [UInt8], limit: Int) -> [UInt8]? {
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

        static func end(of pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
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
        mutating func readLine() -> String? {
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
