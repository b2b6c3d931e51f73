// The few blocking socket calls the server rows' load client and floor server make, on 127.0.0.1
// only, with the platforms' differences in one place.

import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

enum LoopbackSockets {
    #if canImport(Darwin)
        private static let streamType = SOCK_STREAM
        static let sendFlags: Int32 = 0
    #else
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }

    /// A blocking socket, writes sent at once (no Nagle delay), no `SIGPIPE` on Apple platforms.
    private static func makeSocket() throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw BenchmarkError(description: "socket: errno \(errno)") }
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        #if canImport(Darwin)
            setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        return fd
    }

    /// A blocking socket connected to 127.0.0.1:`port`.
    static func connect(port: Int) throws -> Int32 {
        let fd = try makeSocket()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw BenchmarkError(description: "connect to 127.0.0.1:\(port): errno \(code)")
        }
        return fd
    }

    /// A blocking socket listening on 127.0.0.1 on a port the system picks, and that port.
    static func listen() throws -> (fd: Int32, port: Int) {
        let fd = try makeSocket()
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Foundation.listen(fd, 128) == 0 else {
            close(fd)
            throw BenchmarkError(description: "listen on 127.0.0.1: errno \(errno)")
        }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: local.sin_port)))
    }

    /// Waits for the next connection; nil when the listener fails.
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = Foundation.accept(listener, nil, nil)
            if fd >= 0 {
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return fd
            }
            if errno != EINTR { return nil }
        }
    }

    /// Sends all of `bytes`; false when the connection failed.
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, sendFlags)
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

    /// Reads what arrived (waiting for some) into `buffer`: the count, 0 at the end of the stream,
    /// −1 on failure.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            return count
        }
    }

    static func close(_ fd: Int32) {
        _ = Foundation.close(fd)
    }
}
