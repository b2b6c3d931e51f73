import Foundation
import MockNetworkServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP client on a bare socket, for what no URLSession sends: split, pipelined, malformed,
/// truncated and slow requests, and reading an answer byte by byte as it arrives.
///
/// It connects to 127.0.0.1 only, and it is bounded: every read and write waits at most `timeout`
/// (`SO_RCVTIMEO`, `SO_SNDTIMEO`), so a server that stops answering fails a test instead of hanging it.
///
/// `@unchecked Sendable`: the mutable state (`buffer`, `isClosed`) is touched only while `lock` is held
/// (a recursive lock: reading an answer reads its lines); tests hand a client to a Dispatch thread.
final class RawHTTPClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// An answer as read off the socket.
    struct Response {
        var status: Int
        var reason: String
        var headers: HTTPHeaders
        var body: [UInt8]
        /// The sizes of the chunks, in order, when the body came chunked.
        var chunkSizes: [Int] = []
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    private let fd: Int32
    private let lock = NSRecursiveLock()
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to 127.0.0.1 on `port`; with `closeOnExec` (Linux), a process started meanwhile
    /// inherits nothing of this client.
    init(port: Int, timeout: TimeInterval = 5, closeOnExec: Bool = false) throws {
        #if canImport(Darwin)
            fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let cloexec = closeOnExec ? Int32(SOCK_CLOEXEC.rawValue) : 0
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | cloexec, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var wait = timeval()
        wait.tv_sec = .init(timeout)
        wait.tv_usec = .init((timeout - timeout.rounded(.down)) * 1e6)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, size)
        #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            _ = Foundation.close(fd)
            // The object is whole, so `deinit` runs after the throw: it must not close the number again,
            // which another socket may have by then.
            isClosed = true
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(code)")
        }
    }

    deinit { close() }

    /// The local port: the server sees it as the request's peer.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends `text`'s bytes; false when the server no longer takes them.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `bytes`; false when the server no longer takes them.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, flags) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Shuts the sending side: the server reads the end of the stream.
    func finishSending() {
        lock.withLock { _ = shutdown(fd, Int32(SHUT_WR)) }
    }

    func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            _ = Foundation.close(fd)
        }
    }

    // MARK: Reading

    /// Whether bytes (or the end of the stream) are waiting to be read, waiting up to `milliseconds`
    /// for them: the pause of a client that drips its request, cut short when the server answers.
    func hasDataWaiting(milliseconds: Int32) -> Bool {
        lock.withLock {
            guard buffer.isEmpty else { return true }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&entry, 1, milliseconds) > 0
        }
    }

    /// Reads what arrives next into the buffer; false at the end of the stream, an error or the timeout.
    private func fill() -> Bool {
        lock.withLock {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                buffer.append(contentsOf: chunk[..<count])
                return true
            }
        }
    }

    /// Bytes up to and including the next `\r\n`, without it.
    func readLine() throws -> String {
        try lock.withLock {
            while true {
                if let end = buffer.firstIndex(of: 0x0A) {
                    var line = Array(buffer[..<end])
                    buffer.removeFirst(end + 1)
                    if line.last == 0x0D { line.removeLast() }
                    return String(decoding: line, as: UTF8.self)
                }
                guard fill() else {
                    throw Failure(description: "the stream ended inside a line: \(buffer.count) bytes")
                }
            }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        try lock.withLock {
            while buffer.count < count {
                guard fill() else { throw Failure(description: "the stream ended \(count - buffer.count) bytes short") }
            }
            defer { buffer.removeFirst(count) }
            return Array(buffer[..<count])
        }
    }

    /// Whether the server closes the connection (an end of stream or a reset) before the timeout,
    /// dropping whatever arrives first.
    func waitForClose() -> Bool {
        lock.withLock {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 { continue }
                if count < 0, errno == EINTR { continue }
                return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
            }
        }
    }

    /// The head of the next answer: status line and fields.
    func readHead() throws -> (status: Int, reason: String, headers: HTTPHeaders) {
        try lock.withLock {
            let statusLine = try readLine()
            let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
                throw Failure(description: "not a status line: \(statusLine)")
            }
            var headers = HTTPHeaders()
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "not a field: \(line)") }
                headers.add(
                    String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            return (status, parts.count > 2 ? String(parts[2]) : "", headers)
        }
    }

    /// The next chunk's data, or nil for the last chunk (whose trailer is read too).
    func readChunk() throws -> [UInt8]? {
        try lock.withLock {
            let sizeLine = try readLine()
            guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                throw Failure(description: "not a chunk size: \(sizeLine)")
            }
            guard size > 0 else {
                while try !readLine().isEmpty {}
                return nil
            }
            let data = try readExactly(size)
            guard try readLine().isEmpty else { throw Failure(description: "a chunk does not end with CRLF") }
            return data
        }
    }

    /// The next whole answer; `method` says whether a body follows (none for HEAD).
    func readResponse(method: String = "GET") throws -> Response {
        try lock.withLock {
            var (status, reason, headers) = try readHead()
            while status == 100 { (status, reason, headers) = try readHead() }
            var response = Response(status: status, reason: reason, headers: headers, body: [])
            guard method != "HEAD", status >= 200, status != 204, status != 304 else { return response }
            if headers.tokens(for: "Transfer-Encoding").last == "chunked" {
                while let chunk = try readChunk() {
                    response.chunkSizes.append(chunk.count)
                    response.body += chunk
                }
            } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
                response.body = try readExactly(length)
            } else {
                while fill() {}
                response.body = buffer
                buffer.removeAll()
            }
            return response
        }
    }
}
