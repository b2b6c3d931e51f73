/// Strict UTF-8 validation (RFC 3629): what a WebSocket text message and a close reason must be
/// (RFC 6455, 8.1). No overlong forms, no surrogates, nothing past U+10FFFF.
enum UTF8Check {
    /// Whether `bytes` are well-formed UTF-8.
    static func isValid<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let lead = bytes[index]
            bytes.formIndex(after: &index)
            if lead < 0x80 { continue }
            let count: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: count = 1
            case 0xE0:
                count = 2
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: count = 2
            case 0xED:
                count = 2
                upper = 0x9F  // no surrogates
            case 0xF0:
                count = 3
                lower = 0x90
            case 0xF1...0xF3: count = 3
            case 0xF4:
                count = 3
                upper = 0x8F  // nothing past U+10FFFF
            default: return false
            }
            for position in 0..<count {
                guard index != bytes.endIndex else { return false }
                let byte = bytes[index]
                let (low, high) = position == 0 ? (lower, upper) : (0x80, 0xBF)
                guard byte >= low, byte <= high else { return false }
                bytes.formIndex(after: &index)
            }
        }
        return true
    }
}
