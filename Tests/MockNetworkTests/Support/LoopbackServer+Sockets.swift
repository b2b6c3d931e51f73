import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The server's sockets: the listener on 127.0.0.1, the accept loop, and waiting with a deadline.

// MARK: - Platform differences

#if canImport(Glibc)
    /// `SOCK_STREAM` is an enum case (`__socket_type`) in Glibc.
    let streamSocketType = Int32(SOCK_STREAM.rawValue)
    /// Writes to a closed peer fail with `EPIPE` instead of raising `SIGPIPE`.
    let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Musl)
    let streamSocketType = Int32(SOCK_STREAM)
    let sendFlags = Int32(MSG_NOSIGNAL)
#else
    let streamSocketType = Int32(SOCK_STREAM)
    /// Darwin has no `MSG_NOSIGNAL`; sockets get `SO_NOSIGPIPE` instead.
    let sendFlags: Int32 = 0
#endif

/// The most a single read waits for data before giving up on a connection.
let ioTimeoutSeconds = 5.0
/// The longest a `poll` waits before checking the deadline and the stop flag again, in milliseconds.
let pollSliceMilliseconds = 100
/// The most header bytes accepted in one request.
let maxHeadBytes = 64 * 1024
/// The most body bytes accepted in one request.
let maxBodyBytes = 64 * 1024 * 1024

func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
    var value = value
    return setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
}

/// Milliseconds from now until `deadline`, at most `cap`, and 0 once it has passed.
func milliseconds(until deadline: DispatchTime, cap: Int) -> Int {
    let now = DispatchTime.now().uptimeNanoseconds
    let end = deadline.uptimeNanoseconds
    guard end > now else { return 0 }
    return Int(min(UInt64(cap), (end - now + 999_999) / 1_000_000))
}

/// Waits until `fd` is readable; false on timeout, on error, or when `wake` becomes readable first.
func waitReadable(_ fd: Int32, wake: Int32, milliseconds: Int) -> Bool {
    var descriptors = [
        pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
    ]
    guard poll(&descriptors, 2, Int32(milliseconds)) > 0 else { return false }
    return descriptors[0].revents != 0
}

// MARK: - Listening

extension LoopbackServer {
    static func openListener() throws -> Int32 {
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

    static func boundPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw StartError(operation: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The accept loop, on the server's thread. Closes `listener` when it ends.
    static func serve(listener: Int32, context: Context) {
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
