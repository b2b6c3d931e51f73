import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A WebSocket client on one blocking POSIX socket to 127.0.0.1, the load both echo servers get:
/// no event loop, no task, one `send` per frame and a `recv` into a reused buffer, so that what a
/// round trip costs is the server's part and the kernel's.
///
/// It opens with the HTTP/1.1 upgrade (checking the `101` and `Sec-WebSocket-Accept`), sends masked
/// frames, reads the server's unmasked ones, answers a ping with a pong and a close with a close.
/// Every read and write gives up after the socket's timeout. Not thread-safe: one thread a socket.
final class BlockingWebSocket {
    /// Why a socket could not go on.
    enum Failure: Error, CustomStringConvertible {
        /// A socket call failed with this `errno`.
        case system(String, Int32)
        /// A read or write waited longer than the socket's timeout.
        case timedOut(String)
        /// The server's answer to the upgrade was not a WebSocket's.
        case handshake(String)
        /// A frame broke RFC 6455, or an echo was not what was sent.
        case protocolViolation(String)
        /// The server closed the socket, with the close frame's code if it had one.
        case closed(code: UInt16?, reason: String)

        /// What went wrong, in a line.
        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
            case .timedOut(let what): "timed out \(what)"
            case .handshake(let what): "handshake: \(what)"
            case .protocolViolation(let what): "protocol: \(what)"
            case .closed(let code, let reason): "closed by the server (\(code.map(String.init) ?? "no code")) \(reason)"
            }
        }
    }

    /// The frame opcodes of RFC 6455 that this client sends or reads.
    enum Opcode: UInt8 {
        /// The rest of a fragmented message.
        case continuation = 0x0
        /// A UTF-8 message.
        case text = 0x1
        /// A binary message.
        case binary = 0x2
        /// The closing handshake.
        case close = 0x8
        /// A ping, to be answered with a pong.
        case ping = 0x9
        /// A pong.
        case pong = 0xA
    }

    /// The GUID RFC 6455 appends to the key before hashing it for `Sec-WebSocket-Accept`.
    static let acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    private let descriptor: Int32
    /// Bytes read and not yet taken: `input[inputStart..<inputEnd]`.
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    /// The frame being written, reused.
    private var output: [UInt8] = []
    /// A xorshift state for the frames' masking keys.
    private var maskState: UInt32
    private var isOpen = true

    /// Connects to `127.0.0.1:port` and upgrades `path` to a WebSocket.
    ///
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - path: the request target, such as `/echo`.
    ///   - host: the `Host` field; `127.0.0.1:<port>` when nil.
    ///   - timeout: how long any read or write may wait, in seconds.
    init(port: Int, path: String, host: String? = nil, timeout: Double = 5) throws {
        descriptor = try Self.connect(port: port, timeout: timeout)
        input = [UInt8](repeating: 0, count: 64 * 1024)
        maskState = UInt32.random(in: 1...UInt32.max)
        do {
            try handshake(path: path, host: host ?? "127.0.0.1:\(port)")
        } catch {
            _ = posixClose(descriptor)
            isOpen = false
            throw error
        }
    }

    deinit {
        if isOpen { _ = posixClose(descriptor) }
    }

    // MARK: Round trips

    /// Sends `payload` as one text frame and reads messages until one comes back, which must be
    /// the same bytes.
    ///
    /// - Parameter scratch: where the echo is read into; reused across calls to spare allocations.
    func roundTrip(_ payload: [UInt8], scratch: inout [UInt8]) throws {
        try send(.text, payload)
        let opcode = try receiveMessage(into: &scratch)
        guard opcode == .text, scratch == payload else {
            throw Failure.protocolViolation(
                "sent \(payload.count) text bytes, the echo was \(scratch.count) \(opcode) bytes")
        }
    }

    /// Sends one frame, masked as a client's must be, with FIN set.
    func send(_ opcode: Opcode, _ payload: [UInt8]) throws {
        output.removeAll(keepingCapacity: true)
        output.append(0x80 | opcode.rawValue)
        switch payload.count {
        case ..<126:
            output.append(0x80 | UInt8(payload.count))
        case ..<65536:
            output.append(0x80 | 126)
            output.append(UInt8(payload.count >> 8))
            output.append(UInt8(payload.count & 0xFF))
        default:
            output.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        maskState ^= maskState << 13
        maskState ^= maskState >> 17
        maskState ^= maskState << 5
        let mask = [
            UInt8(maskState >> 24), UInt8((maskState >> 16) & 0xFF), UInt8((maskState >> 8) & 0xFF),
            UInt8(maskState & 0xFF),
        ]
        output.append(contentsOf: mask)
        for (index, byte) in payload.enumerated() { output.append(byte ^ mask[index & 3]) }
        try writeAll(output)
    }

    /// Reads one whole message (joining fragments) into `payload` and returns its opcode (`.text`
    /// or `.binary`), answering pings and skipping pongs on the way.
    ///
    /// - Throws: ``Failure/closed(code:reason:)`` when the server closes (after the close is echoed).
    func receiveMessage(into payload: inout [UInt8]) throws -> Opcode {
        payload.removeAll(keepingCapacity: true)
        var messageOpcode: Opcode?
        while true {
            let (fin, opcode, range) = try readFrame()
            switch opcode {
            case .ping:
                let ping = Array(input[range])
                consume(upTo: range.upperBound)
                try send(.pong, ping)
            case .pong:
                consume(upTo: range.upperBound)
            case .close:
                let body = Array(input[range])
                consume(upTo: range.upperBound)
                let code = body.count >= 2 ? UInt16(body[0]) << 8 | UInt16(body[1]) : nil
                let reason = body.count > 2 ? String(decoding: body[2...], as: UTF8.self) : ""
                try? send(.close, Array(body.prefix(2)))
                throw Failure.closed(code: code, reason: reason)
            case .text, .binary:
                guard messageOpcode == nil else {
                    throw Failure.protocolViolation("a new message began inside a fragmented one")
                }
                messageOpcode = opcode
                payload.append(contentsOf: input[range])
                consume(upTo: range.upperBound)
            case .continuation:
                guard messageOpcode != nil else { throw Failure.protocolViolation("a continuation began a message") }
                payload.append(contentsOf: input[range])
                consume(upTo: range.upperBound)
            }
            if let messageOpcode, fin, opcode != .ping, opcode != .pong { return messageOpcode }
        }
    }

    /// Sends a close frame (1000), waits for the server's close (reading at most 16 messages that
    /// were still on their way, each within 1 s), and closes the socket.
    func close() {
        guard isOpen else { return }
        try? send(.close, [0x03, 0xE8])
        var limit = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var scratch: [UInt8] = []
        for _ in 0..<16 {
            do { _ = try receiveMessage(into: &scratch) } catch { break }
        }
        _ = posixClose(descriptor)
        isOpen = false
    }

    // MARK: Frames

    /// Reads one frame's header and payload into the buffer, leaving them there: its FIN bit, its
    /// opcode and where its payload lies in `input`. The caller consumes it.
    private func readFrame() throws -> (fin: Bool, opcode: Opcode, payload: Range<Int>) {
        try fill(2)
        let first = input[inputStart]
        let second = input[inputStart + 1]
        guard first & 0x70 == 0 else { throw Failure.protocolViolation("reserved bits set: \(first)") }
        guard let opcode = Opcode(rawValue: first & 0x0F) else {
            throw Failure.protocolViolation("unknown opcode \(first & 0x0F)")
        }
        guard second & 0x80 == 0 else { throw Failure.protocolViolation("the server masked a frame") }
        var headerLength = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            try fill(4)
            length = Int(input[inputStart + 2]) << 8 | Int(input[inputStart + 3])
            headerLength = 4
        } else if length == 127 {
            try fill(10)
            length = 0
            for index in 2..<10 { length = length << 8 | Int(input[inputStart + index]) }
            headerLength = 10
        }
        guard length <= 16 * 1024 * 1024 else { throw Failure.protocolViolation("a frame of \(length) bytes") }
        try fill(headerLength + length)
        let start = inputStart + headerLength
        return (first & 0x80 != 0, opcode, start..<(start + length))
    }

    /// Drops the buffered bytes before `index`.
    private func consume(upTo index: Int) {
        inputStart = index
        if inputStart == inputEnd {
            inputStart = 0
            inputEnd = 0
        }
    }

    /// Reads until at least `count` bytes are buffered, moving or growing the buffer as needed.
    private func fill(_ count: Int) throws {
        while inputEnd - inputStart < count {
            if inputStart + count > input.count {
                let buffered = inputEnd - inputStart
                if count > input.count { input.append(contentsOf: repeatElement(0, count: count - input.count)) }
                if inputStart > 0 {
                    input.withUnsafeMutableBytes { bytes in
                        _ = memmove(bytes.baseAddress!, bytes.baseAddress! + inputStart, buffered)
                    }
                }
                inputStart = 0
                inputEnd = buffered
            }
            let received = input.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress! + inputEnd, bytes.count - inputEnd, 0)
            }
            if received > 0 {
                inputEnd += received
            } else if received == 0 {
                throw Failure.closed(code: nil, reason: "(the connection ended without a close frame)")
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw Failure.timedOut("reading")
            } else if errno != EINTR {
                throw Failure.system("recv", errno)
            }
        }
    }

    /// Writes every byte of `bytes`, however many `send` calls it takes.
    private func writeAll(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                posixSend(descriptor, raw.baseAddress! + sent, raw.count - sent)
            }
            if written >= 0 {
                sent += written
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw Failure.timedOut("writing")
            } else if errno != EINTR {
                throw Failure.system("send", errno)
            }
        }
    }

    // MARK: Opening

    /// Sends the upgrade request and reads the answer's head, leaving any bytes after it buffered.
    private func handshake(path: String, host: String) throws {
        var keyBytes = [UInt8](repeating: 0, count: 16)
        for index in keyBytes.indices { keyBytes[index] = UInt8.random(in: 0...255) }
        let key = Data(keyBytes).base64EncodedString()
        let request =
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        try writeAll(Array(request.utf8))

        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            guard inputEnd < 16 * 1024 else { throw Failure.handshake("no end to the answer's head in 16 KB") }
            try fill(inputEnd - inputStart + 1)
            if inputEnd >= 4 {
                headEnd = (0...(inputEnd - 4)).first { input[$0..<($0 + 4)].elementsEqual(terminator) }
            }
        }
        let head = String(decoding: input[0..<headEnd!], as: UTF8.self)
        consume(upTo: headEnd! + 4)

        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        guard statusLine.hasPrefix("HTTP/1.1 101") else { throw Failure.handshake("answered \"\(statusLine)\"") }
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            fields[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        guard fields["upgrade"]?.lowercased() == "websocket" else {
            throw Failure.handshake("Upgrade is \(fields["upgrade"].map { "\"\($0)\"" } ?? "missing")")
        }
        let expected = Data(sha1(Array((key + Self.acceptGUID).utf8))).base64EncodedString()
        guard fields["sec-websocket-accept"] == expected else {
            throw Failure.handshake(
                "Sec-WebSocket-Accept is \(fields["sec-websocket-accept"].map { "\"\($0)\"" } ?? "missing"), "
                    + "expected \"\(expected)\"")
        }
    }

    /// A TCP socket connected to `127.0.0.1:port`, with Nagle off and read and write timeouts.
    private static func connect(port: Int, timeout: Double) throws -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure.system("socket", errno) }
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var limit = timeval(tv_sec: Int(timeout), tv_usec: .init(timeout.truncatingRemainder(dividingBy: 1) * 1e6))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                posixConnect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            _ = posixClose(descriptor)
            throw Failure.system("connect(127.0.0.1:\(port))", code)
        }
        return descriptor
    }
}

/// `send` with no `SIGPIPE` on a closed connection (`MSG_NOSIGNAL` on Linux; Darwin's socket has
/// `SO_NOSIGPIPE` set instead).
private func posixSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
    #else
        send(descriptor, bytes, count, 0)
    #endif
}

/// The C library's `connect`, which the client's own names would otherwise hide.
private func posixConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t)
    -> Int32
{
    connect(descriptor, address, length)
}

/// The C library's `close`, which the client's own `close()` would otherwise hide.
private func posixClose(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
