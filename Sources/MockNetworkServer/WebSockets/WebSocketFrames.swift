/// WebSocket frames (RFC 6455, 5): reading a client's, which are masked, and writing the server's,
/// which are not.
enum WebSocketFrames {
    /// A frame's kind.
    enum Opcode: UInt8 {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: never fragmented, at most 125 bytes, allowed between fragments.
        var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// A frame read whole, its payload unmasked.
    struct Frame: Equatable {
        var fin: Bool
        var opcode: Opcode
        var payload: [UInt8]
    }

    /// What reading found at the front of the bytes.
    enum ReadResult: Equatable {
        /// A frame is not all there yet.
        case needMore
        /// A whole frame, taken from the bytes.
        case frame(Frame)
        /// The bytes break the protocol: the connection is failed with this code and reason.
        case failure(WebSocketCloseCode, String)
    }

    /// What comes before a frame's payload.
    struct Head {
        var fin: Bool
        var opcode: Opcode
        /// The payload's length.
        var length: Int
        /// Where the payload starts, from the front of the frame.
        var payloadStart: Int
        var mask: (UInt8, UInt8, UInt8, UInt8)
    }

    /// What reading a head found at the front of the bytes.
    enum HeadResult {
        case needMore
        case head(Head)
        case failure(WebSocketCloseCode, String)
    }

    /// Reads the head of the frame at the front of `bytes`, taking nothing off: it must be masked, use
    /// no reserved bit (no extension is agreed), name a known opcode, follow the rules of control
    /// frames, and announce at most `maxPayload` bytes.
    static func readHead(_ bytes: ByteQueue, maxPayload: Int) -> HeadResult {
        guard bytes.count >= 2 else { return .needMore }
        let first = bytes[0]
        let second = bytes[1]
        guard first & 0x70 == 0 else {
            return .failure(.protocolError, "a reserved bit is set, and no extension was agreed")
        }
        guard let opcode = Opcode(rawValue: first & 0x0F) else {
            return .failure(.protocolError, "opcode \(first & 0x0F) is reserved")
        }
        let fin = first & 0x80 != 0
        guard second & 0x80 != 0 else {
            return .failure(.protocolError, "a client's frame must be masked")
        }
        var headerLength = 2
        var length = Int(second & 0x7F)
        if opcode.isControl {
            guard fin else { return .failure(.protocolError, "a control frame must not be fragmented") }
            guard length <= 125 else { return .failure(.protocolError, "a control frame carries at most 125 bytes") }
        }
        if length == 126 {
            guard bytes.count >= 4 else { return .needMore }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            headerLength = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return .needMore }
            guard bytes[2] & 0x80 == 0 else {
                return .failure(.protocolError, "a 64-bit length must have its high bit clear")
            }
            var long: UInt64 = 0
            for index in 2..<10 { long = long << 8 | UInt64(bytes[index]) }
            guard long <= UInt64(maxPayload) else {
                return .failure(.messageTooBig, "a frame of \(long) bytes is over the limit of \(maxPayload)")
            }
            length = Int(long)
            headerLength = 10
        }
        guard length <= maxPayload else {
            return .failure(.messageTooBig, "a frame of \(length) bytes is over the limit of \(maxPayload)")
        }
        guard bytes.count >= headerLength + 4 else { return .needMore }
        let mask = (bytes[headerLength], bytes[headerLength + 1], bytes[headerLength + 2], bytes[headerLength + 3])
        return .head(Head(fin: fin, opcode: opcode, length: length, payloadStart: headerLength + 4, mask: mask))
    }

    /// Reads the frame at the front of `bytes` (taking it off when it is whole), its head checked as
    /// ``readHead(_:maxPayload:)`` says.
    static func read(_ bytes: inout ByteQueue, maxPayload: Int) -> ReadResult {
        switch readHead(bytes, maxPayload: maxPayload) {
        case .needMore:
            return .needMore
        case .failure(let code, let reason):
            return .failure(code, reason)
        case .head(let head):
            let total = head.payloadStart + head.length
            guard bytes.count >= total else { return .needMore }
            let payload = unmasked(bytes, head, from: 0, to: head.length)
            bytes.removeFirst(total)
            return .frame(Frame(fin: head.fin, opcode: head.opcode, payload: payload))
        }
    }

    /// The payload bytes `offset..<end` of the frame `head` heads at the front of `bytes`, unmasked:
    /// the frame may still be arriving, as long as they have.
    static func unmasked(_ bytes: ByteQueue, _ head: Head, from offset: Int, to end: Int) -> [UInt8] {
        let count = end - offset
        guard count > 0 else { return [] }
        let mask = head.mask
        let key = [mask.0, mask.1, mask.2, mask.3]
        return [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            bytes.withUnsafeBytes { all in
                let input = UnsafeRawBufferPointer(
                    rebasing: all[(head.payloadStart + offset)..<(head.payloadStart + end)])
                // Eight bytes at a time: the key repeated, turned to start where `offset` falls in it.
                var word: UInt64 = 0
                withUnsafeMutableBytes(of: &word) { for index in 0..<8 { $0[index] = key[(offset + index) & 3] } }
                var index = 0
                while index + 8 <= count {
                    let chunk = input.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    UnsafeMutableRawPointer(output.baseAddress! + index).storeBytes(
                        of: chunk ^ word, as: UInt64.self)
                    index += 8
                }
                while index < count {
                    output[index] = input[index] ^ key[(offset + index) & 3]
                    index += 1
                }
            }
            initialized = count
        }
    }

    /// A server's frame: unmasked, `fin` unless it is a fragment with more to follow.
    static func frame(_ opcode: Opcode, _ payload: some Collection<UInt8>, fin: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 10)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        switch payload.count {
        case 0...125:
            bytes.append(UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(truncatingIfNeeded: payload.count))
        default:
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
            }
        }
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// A message's one frame: text or binary, whole.
    static func frame(for message: WebSocketMessage) -> [UInt8] {
        switch message {
        case .text(let text): frame(.text, Array(text.utf8))
        case .data(let data): frame(.binary, Array(data))
        }
    }

    /// A close frame's payload: the code, then the reason (cut to fit 123 bytes at a character's end).
    static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            var cut = 123
            while cut > 0, reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            reasonBytes = Array(reasonBytes[..<cut])
        }
        return [UInt8(code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)] + reasonBytes
    }
}
