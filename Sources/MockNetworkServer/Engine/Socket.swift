#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The few POSIX socket calls the server makes, with the platforms' differences in one place.
///
/// Every socket is non-blocking and close-on-exec (from birth where the platform can:
/// `Socket+CloseOnExec.swift`); a write to a socket the peer closed returns `EPIPE` instead of
/// raising `SIGPIPE` (`MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Apple platforms).
enum Socket {
    /// What a failed call was and its `errno`.
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let code: Int32
        var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// What a read gave.
    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case endOfStream
        case failed
    }

    /// What a write gave.
    enum WriteResult {
        case sent(Int)
        case wouldBlock
        case failed
    }

    #if canImport(Darwin)
        private static let sendFlags: Int32 = 0
    #else
        private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// A socket listening on 127.0.0.1 on a port the system picks, and that port.
    ///
    /// - Parameter failingBind: an `errno` for `bind` to fail with, instead of binding: MockNetwork's
    ///   tests give the `EPERM` of a sandboxed macOS process, which Linux gives no process here.
    static func listenOnLoopback(backlog: Int32, failingBind: Int32? = nil) throws -> (fd: Int32, port: Int) {
        let fd = newStreamSocket()
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        // The caller reads `errno` into `code` before `close` may change it.
        func fail(_ operation: String, _ code: Int32) -> Failure {
            _ = close(fd)
            return Failure(operation: operation, code: code)
        }
        guard configure(fd, listening: true) else { throw fail("fcntl/setsockopt", errno) }
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        let bound: Int32
        if failingBind != nil {
            bound = -1
        } else {
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0 else { throw fail("bind(127.0.0.1:0)", failingBind ?? errno) }
        guard listen(fd, backlog) == 0 else { throw fail("listen", errno) }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw fail("getsockname", errno) }
        return (fd, Int(UInt16(bigEndian: local.sin_port)))
    }

    /// What `accept` gave: a configured connection and its peer, nothing more for now, or a
    /// shortage of descriptors (the caller pauses before trying again).
    enum AcceptResult {
        case connection(Int32, HTTPPeer)
        case noneWaiting
        case outOfDescriptors
    }

    static func acceptConnection(from listener: Int32) -> AcceptResult {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { acceptSocket(listener, $0, &length) }
        }
        guard fd >= 0 else {
            switch errno {
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            case EINTR, ECONNABORTED: return acceptConnection(from: listener)
            default: return .noneWaiting
            }
        }
        guard configure(fd, listening: false) else {
            _ = close(fd)
            return acceptConnection(from: listener)
        }
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        _ = inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
        let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return .connection(fd, HTTPPeer(host: host, port: Int(UInt16(bigEndian: address.sin_port))))
    }

    /// Non-blocking and close-on-exec (unless it was born so); a listener reuses its address, a
    /// connection sends small writes at once (no Nagle delay: heads and chunks are small).
    private static func configure(_ fd: Int32, listening: Bool) -> Bool {
        if !bornCloseOnExec {
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
            guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { return false }
        }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        if listening {
            return setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, size) == 0
        }
        #if canImport(Darwin)
            guard setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, size) == 0 else { return false }
        #endif
        return setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size) == 0
    }

    static func readSome(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    static func sendSome(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> WriteResult {
        while true {
            let count = send(fd, bytes.baseAddress, bytes.count, sendFlags)
            if count >= 0 { return .sent(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// Whether bytes (or the end of the stream) wait to be read, without waiting.
    static func hasBytesWaiting(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Whether the peer has left, seen now without waiting: the end of its stream (it closed or shut
    /// its sending side) or an error (a reset) is the next thing to read. Bytes it sent and the server
    /// has not read yet come first: an end behind them is seen once they are read.
    static func peerHasLeft(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        if entry.revents & Int16(POLLERR | POLLHUP) != 0 { return true }
        var byte: UInt8 = 0
        while true {
            let count = recv(fd, &byte, 1, peekFlags)
            if count > 0 { return false }
            if count == 0 { return true }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return false
            default: return true
            }
        }
    }

    #if canImport(Darwin)
        private static let peekFlags = MSG_PEEK | MSG_DONTWAIT
    #else
        private static let peekFlags = Int32(MSG_PEEK) | Int32(MSG_DONTWAIT)
    #endif

    /// Sends `bytes` if the socket takes them at once, and gives up otherwise (a refusal's answer).
    static func sendIfPossible(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = sendSome(fd, $0) }
    }

    /// Ends the sending side: the peer reads the end of the stream after what was sent.
    static func shutdownSending(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Ends both sides at once: reads and writes on it fail from now on, in every thread.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }
}
