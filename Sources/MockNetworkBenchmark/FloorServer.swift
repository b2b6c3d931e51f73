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
        let scanner = HeadScanner()
        while scanner.answerWaiting(fd) {}
    }
}

/// The same minimal server on Dispatch, as the engine is built: a read source per connection on a
/// serial queue of its own, whose handler reads what arrived (non-blocking) and writes the fixed
/// response for each head's end. What Dispatch itself costs per request, beside `FloorServer`.
final class DispatchFloorServer: Sendable {
    let port: Int
    private let sources = Locked([any DispatchSourceRead]())

    init() throws {
        let (listener, port) = try LoopbackSockets.listen()
        self.port = port
        let acceptor = Thread { [sources] in
            while let fd = LoopbackSockets.accept(listener) {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                let queue = DispatchQueue(label: "MockNetworkBenchmark.floor.\(fd)")
                let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
                let scanner = HeadScanner()
                source.setEventHandler {
                    if !scanner.answerWaiting(fd) { source.cancel() }
                }
                source.setCancelHandler { LoopbackSockets.close(fd) }
                sources.withLock { $0.append(source) }
                source.activate()
            }
        }
        acceptor.start()
    }
}

/// Bytes of a connection not yet answered, and the search for each head's end in them.
final class HeadScanner: @unchecked Sendable {  // used only on its connection's serial queue
    private let capacity = 16 * 1024
    private let buffer: UnsafeMutableRawBufferPointer
    private var filled = 0
    private var scanned = 0

    init() { buffer = .allocate(byteCount: capacity, alignment: 1) }
    deinit { buffer.deallocate() }

    /// Reads what arrived on `fd` (waiting for some on a blocking socket, not on a non-blocking one)
    /// and answers each head it ends; false when the connection ended or failed. A head straddling
    /// two reads is found; one longer than the buffer ends the connection.
    func answerWaiting(_ fd: Int32) -> Bool {
        let count = recv(fd, buffer.baseAddress! + filled, capacity - filled, 0)
        if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR }
        guard count > 0 else { return false }
        filled += count
        var start = 0
        var index = max(scanned, 3)
        while index < filled {
            if buffer[index] == 0x0A, buffer[index - 1] == 0x0D, buffer[index - 2] == 0x0A, buffer[index - 3] == 0x0D {
                // A reply this small goes out whole on a socket with room: no write source needed.
                guard FloorServer.response.withUnsafeBytes({ LoopbackSockets.sendAll(fd, $0) }) else { return false }
                start = index + 1
                index += 4
            } else {
                index += 1
            }
        }
        if start > 0 {
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[start..<filled]))
            filled -= start
        }
        scanned = filled
        return filled < capacity
    }
}
