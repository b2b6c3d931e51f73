import Foundation

/// JSON text read straight into a ``JSONValue``: GraphQL bodies are parsed on every request that
/// could match an operation, and `JSONDecoder` spends about 150,000 instructions on an 80-byte one.
///
/// The reader takes the common case (UTF-8 text as RFC 8259 writes it) and gives up, returning
/// `nil`, on anything else: a byte-order mark or other encoding, invalid UTF-8, a lone surrogate,
/// a number a `Double` cannot hold, a key given twice, nesting past 512 levels, or any error.
/// `JSONValue(json:)` then asks `JSONDecoder`, so values and error messages stay as it makes them.
struct JSONReader {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    /// The value `data` holds, or `nil` when the reader leaves the text to `JSONDecoder`.
    static func value(in data: Data) -> JSONValue? {
        data.withUnsafeBytes { bytes in
            var reader = JSONReader(bytes: bytes)
            guard let value = reader.value() else { return nil }
            reader.skipWhitespace()
            // Not `? value : nil`: JSONValue is ExpressibleByNilLiteral, so that `nil` reads as `.null`.
            guard reader.index == bytes.count else { return Optional.none }
            return value
        }
    }

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value() -> JSONValue? {
        skipWhitespace()
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return number()
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return value
    }

    private mutating func object() -> JSONValue? {
        guard depth < 512 else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value(), members.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?:
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array() -> JSONValue? {
        guard depth < 512 else { return nil }
        depth += 1
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let value = value() else { return nil }
            elements.append(value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?:
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    /// A string from its opening quote: plain runs of text are copied whole, escapes decoded. The
    /// common string (no escape) is made from its bytes once, with no text built up.
    private mutating func string() -> String? {
        index += 1
        var text: String?
        var runStart = index
        var high: UInt8 = 0
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                guard let run = run(from: runStart, ascii: high < 0x80) else { return nil }
                index += 1
                guard var built = text else { return run }
                built += run
                return built
            case UInt8(ascii: "\\"):
                guard let run = run(from: runStart, ascii: high < 0x80) else { return nil }
                index += 1
                guard let escaped = escape() else { return nil }
                // Taken out of `text` first, so the append grows it in place: a copy per escape made
                // a string of many escapes quadratic (1.25 M escapes: no answer in 144 s).
                var built = text ?? ""
                text = nil
                built += run
                built.unicodeScalars.append(escaped)
                text = built
                runStart = index
                high = 0
            case 0..<0x20: return nil
            default:
                high |= byte
                index += 1
            }
        }
        return nil
    }

    /// The bytes from `start` to the reader's place as text, or `nil` if they are not UTF-8.
    private func run(from start: Int, ascii: Bool) -> String? {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        guard ascii else { return String(bytes: slice, encoding: .utf8) }
        return String(decoding: slice.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    private mutating func escape() -> Unicode.Scalar? {
        guard let byte = current else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return nil }
            switch unit {
            case 0xD800..<0xDC00:
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let low = hexUnit(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            case 0xDC00..<0xE000: return nil
            default: return Unicode.Scalar(unit)
            }
        default: return nil
        }
    }

    private mutating func hexUnit() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt32(digit)
            index += 1
        }
        return unit
    }

    /// A number as RFC 8259 spells it: `-`? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return nil }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, isDigit(byte) else { return nil }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, isDigit(byte) else { return nil }
            skipDigits()
        }
        let digits = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        let text = String(decoding: digits.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        guard let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }
}
