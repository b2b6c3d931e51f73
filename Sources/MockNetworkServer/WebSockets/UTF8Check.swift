/// Strict UTF-8 validation (RFC 3629): what a WebSocket text message and a close reason must be
/// (RFC 6455, 8.1). No overlong forms, no surrogates, nothing past U+10FFFF.
enum UTF8Check {
    /// Whether `bytes` are well-formed UTF-8.
    static func isValid<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var stream = Stream()
        return stream.feed(bytes) && stream.isComplete
    }

    /// UTF-8 checked as it arrives, a piece at a time: a text message split into fragments, or a frame
    /// still arriving, fails at the first byte that makes it invalid (RFC 6455, 8.1: "fail fast").
    struct Stream {
        /// Bytes still to come of the character begun.
        private var remaining = 0
        /// The range the next byte of that character must be in (the first one's is narrower for
        /// some leads: no overlong forms, no surrogates, nothing past U+10FFFF).
        private var lower: UInt8 = 0x80
        private var upper: UInt8 = 0xBF

        /// Whether what came so far ends between characters.
        var isComplete: Bool { remaining == 0 }

        /// Takes `bytes`; false when they make the text invalid (whatever comes after).
        mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
            for byte in bytes {
                if remaining > 0 {
                    guard byte >= lower, byte <= upper else { return false }
                    remaining -= 1
                    (lower, upper) = (0x80, 0xBF)
                    continue
                }
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: remaining = 1
                case 0xE0: (remaining, lower) = (2, 0xA0)
                case 0xE1...0xEC, 0xEE...0xEF: remaining = 2
                case 0xED: (remaining, upper) = (2, 0x9F)  // no surrogates
                case 0xF0: (remaining, lower) = (3, 0x90)
                case 0xF1...0xF3: remaining = 3
                case 0xF4: (remaining, upper) = (3, 0x8F)  // nothing past U+10FFFF
                default: return false
                }
            }
            return true
        }
    }
}
