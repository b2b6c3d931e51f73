// The server rows' floor: the least a keep-alive HTTP server can do on this platform.

import Foundation

/// A minimal socket server on 127.0.0.1: a blocking thread per connection that reads until a head's
/// `\r\n\r\n` and writes one fixed response with its `Content-Length`, keeping the connection open;
/// nothing is parsed beyond finding where a head ends.
///
/// A blocking thread per connection is the least work per request here: one `recv` and one `send`,
/// and the kernel wakes the thread whose socket is ready (a Dispatch source would add its manager
/// thread's `epoll` and a hop to a worker per request, as the engine has). It lives until the
/// process ends; each connection's thread ends when its client closes.
final class FloorServer: Sendable {
    let port: Int
    /// What every request gets: the same status, fields and body as the engine's rows.
    static let response = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 2\r\n\r\nok".utf8)

    init() throws {
        let (listener, port) = try LoopbackSockets.listen()
        self.port = port
        let acceptor = Thread {
            while let fd = LoopbackSockets.accept(listener) {
                let connection = Thread { Self.serve(fd) }
                connection.stackSize = 256 * 1024
                connection.start()
            }
        }
        acceptor.start()
    }

    /// Answers each head that arrives on `fd` until the client closes.
    private static func serve(_ fd: Int32) {
        defer { LoopbackSockets.close(fd) }
        let capacity = 16 * 1024
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        var filled = 0
        // How far `buffer` has been searched for `\r\n\r\n` (a head's end may straddle two reads).
        var scanned = 0
        while true {
            let count = LoopbackSockets.receive(
                fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<capacity]))
            guard count > 0 else { return }
            filled += count
            var start = 0
            var index = max(scanned, 3)
            while index < filled {
                if buffer[index] == 0x0A, buffer[index - 1] == 0x0D, buffer[index - 2] == 0x0A,
                    buffer[index - 3] == 0x0D
                {
                    let sent = response.withUnsafeBytes { LoopbackSockets.sendAll(fd, $0) }
                    guard sent else { return }
                    start = index + 1
                    index += 4
                } else {
                    index += 1
                }
            }
            // Keeps the start of a head not yet ended; a head longer than the buffer ends the connection.
            if start > 0 {
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<filled]))
                filled -= start
            }
            guard filled < capacity else { return }
            scanned = filled
        }
    }
}
