#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sockets that are close-on-exec (and non-blocking) from the moment they exist: a process another
/// thread starts at any instant (`curl`, a test's `Process`) inherits none of them, so a port the
/// server closed is closed, and a connection it closed ends for its client.
///
/// On Linux the kernel makes them so in the same call (`SOCK_CLOEXEC` to `socket`, `accept4`). Apple
/// platforms have neither: there the flags are set right after the call, and a process started by
/// another thread in between still inherits the descriptor (until it execs again or exits). Nothing
/// in the server starts processes; a test that does so beside a server on macOS can see a stopped
/// server's port accept connections until that process ends.
extension Socket {
    /// Whether the descriptors `socket` and `accept` give are non-blocking and close-on-exec already.
    static var bornCloseOnExec: Bool {
        #if canImport(Glibc)
            return accept4 != nil
        #else
            return false
        #endif
    }

    /// A new TCP socket for IPv4, close-on-exec and non-blocking from birth where the platform can.
    static func newStreamSocket() -> Int32 {
        #if canImport(Glibc)
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            return socket(AF_INET, accept4 != nil ? type : Int32(SOCK_STREAM.rawValue), 0)
        #elseif canImport(Darwin)
            return socket(AF_INET, SOCK_STREAM, 0)
        #else
            return socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
    }

    /// Accepts a connection from `listener`, close-on-exec and non-blocking from birth where the
    /// platform can; its peer's address goes to `address`.
    static func acceptSocket(
        _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
    ) -> Int32 {
        #if canImport(Glibc)
            if let accept4 {
                return accept4(listener, address, length, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            }
        #endif
        return accept(listener, address, length)
    }

    #if canImport(Glibc)
        private typealias Accept4 =
            @convention(c) (
                Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32
            ) -> Int32

        /// glibc's `accept4` (since 2.10), looked up once by name: Swift's Glibc module leaves it out,
        /// as the header declares it only for `_GNU_SOURCE`. `SOCK_CLOEXEC` is used only with it, so
        /// both or neither are in use.
        private static let accept4: Accept4? = {
            guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "accept4") else { return nil }
            return unsafeBitCast(symbol, to: Accept4.self)
        }()
    #endif
}
