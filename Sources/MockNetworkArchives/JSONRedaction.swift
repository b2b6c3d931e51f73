import Foundation
import MockNetwork

/// Replaces the values of chosen keys in JSON text, leaving every other byte as it was: the
/// order of keys, the spacing and the numbers of a recorded body stay, and it stays valid JSON.
enum JSONRedaction {
    /// `data` with the value of every member named one of `keys` (at any depth, compared
    /// case-insensitively) replaced by the string `replacement`, and the strings those values
    /// held (to be cleaned elsewhere too). `nil` when `data` is not a JSON object or array, or
    /// nests deeper than 256 levels.
    static func redact(_ data: Data, keys: Set<String>, replacement: String) -> (data: Data, removed: [String])? {
        guard !keys.isEmpty, let scanner = Scanner.scan([UInt8](data), keys: keys) else { return nil }
        let bytes = scanner.bytes
        guard !scanner.found.isEmpty else { return (data, []) }
        let quoted = Data(Self.quoted(replacement).utf8)
        var out = Data()
        var copied = 0
        var removed: [String] = []
        for (range, text) in scanner.found {
            out.append(contentsOf: bytes[copied..<range.lowerBound])
            out.append(quoted)
            copied = range.upperBound
            if let text { removed.append(text) }
        }
        out.append(contentsOf: bytes[copied...])
        return (out, removed)
    }

    /// `data` with each of `secrets` replaced by `replacement` inside the strings of the JSON, keys
    /// included (but for the names in `keeping`, the redacted keys), never in numbers or the structure: each string that holds one is decoded, cleaned and
    /// written again, so the JSON stays valid whatever the secret holds (quotes, backslashes).
    /// `nil` when `data` is not a JSON object or array.
    static func replacing(
        _ secrets: [String], with replacement: String, inStringsOf data: Data, keeping names: Set<String>
    ) -> Data? {
        // Each secret as it is written in JSON, plainly or escaped: a body holding none is left as it is.
        let forms = Set(
            secrets.flatMap { secret in
                let escaped = String(quoted(secret).dropFirst().dropLast())
                return [secret, escaped, escaped.replacingOccurrences(of: "/", with: "\\/")].map { Data($0.utf8) }
            })
        guard let scanner = Scanner.scan([UInt8](data), keys: [], collectingStrings: true, keeping: names) else {
            return nil
        }
        guard forms.contains(where: { data.range(of: $0) != nil }) else { return data }
        var out = [UInt8]()
        out.reserveCapacity(scanner.bytes.count)
        var copied = 0
        for range in scanner.strings {
            let literal = Data(scanner.bytes[range])
            guard forms.contains(where: { literal.range(of: $0) != nil }),
                let text = Scanner.decoded(scanner.bytes[range])
            else { continue }
            var cleaned = text
            for secret in secrets { cleaned = cleaned.replacingOccurrences(of: secret, with: replacement) }
            guard cleaned != text else { continue }
            out += scanner.bytes[copied..<range.lowerBound]
            out += Array(quoted(cleaned).utf8)
            copied = range.upperBound
        }
        out += scanner.bytes[copied...]
        return Data(out)
    }

    /// `text` as a JSON string literal (`/` left as it is).
    static func quoted(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let encoded = try? encoder.encode(text)
        return encoded.map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }

    private struct Scanner {
        let bytes: [UInt8]
        let keys: Set<String>
        var position = 0
        /// Whether ``strings`` is filled.
        let collectingStrings: Bool
        /// Keys left out of ``strings`` (lowercased).
        let keptKeys: Set<String>
        /// The byte ranges of the values to replace, in order, with the string each held.
        var found: [(Range<Int>, String?)] = []
        /// The byte ranges of the strings, keys included, quotes included, in order.
        var strings: [Range<Int>] = []

        init(bytes: [UInt8], keys: Set<String>, collectingStrings: Bool, keeping keptKeys: Set<String>) {
            self.bytes = bytes
            self.keys = Set(keys.map { $0.lowercased() })
            self.collectingStrings = collectingStrings
            self.keptKeys = Set(keptKeys.map { $0.lowercased() })
        }

        /// The scanner after reading `bytes` whole (a byte order mark first is skipped), or `nil` when
        /// they are not a JSON object or array.
        static func scan(
            _ bytes: [UInt8], keys: Set<String>, collectingStrings: Bool = false, keeping keptKeys: Set<String> = []
        ) -> Scanner? {
            var scanner = Scanner(bytes: bytes, keys: keys, collectingStrings: collectingStrings, keeping: keptKeys)
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
            scanner.skipSpace()
            guard scanner.peek == UInt8(ascii: "{") || scanner.peek == UInt8(ascii: "[") else { return nil }
            guard scanner.value(depth: 0) else { return nil }
            scanner.skipSpace()
            return scanner.position == bytes.count ? scanner : nil
        }

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        }

        mutating func expect(_ character: Unicode.Scalar) -> Bool {
            guard peek == UInt8(ascii: character) else { return false }
            position += 1
            return true
        }

        /// Reads one value; `false` when the text is not JSON there.
        mutating func value(depth: Int) -> Bool {
            guard depth < 256 else { return false }
            skipSpace()
            switch peek {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""):
                guard let range = string() else { return false }
                if collectingStrings { strings.append(range) }
                return true
            case nil: return false
            default: return scalar()
            }
        }

        mutating func object(depth: Int) -> Bool {
            position += 1
            skipSpace()
            if expect("}") { return true }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), let key = string() else { return false }
                if collectingStrings,
                    keptKeys.isEmpty || !keptKeys.contains(Self.decoded(bytes[key])?.lowercased() ?? "")
                {
                    strings.append(key)
                }
                skipSpace()
                guard expect(":") else { return false }
                skipSpace()
                let start = position
                let isString = peek == UInt8(ascii: "\"")
                guard value(depth: depth + 1) else { return false }
                if let name = Self.decoded(bytes[key]), keys.contains(name.lowercased()) {
                    // Members inside a redacted value go with it (they are the last ones found).
                    while let last = found.last, last.0.lowerBound >= start { found.removeLast() }
                    let text = isString ? Self.decoded(bytes[start..<position]) : nil
                    found.append((start..<position, text))
                }
                skipSpace()
                if expect("}") { return true }
                guard expect(",") else { return false }
            }
        }

        mutating func array(depth: Int) -> Bool {
            position += 1
            skipSpace()
            if expect("]") { return true }
            while true {
                guard value(depth: depth + 1) else { return false }
                skipSpace()
                if expect("]") { return true }
                guard expect(",") else { return false }
            }
        }

        /// Reads a string literal; returns its range, quotes included.
        mutating func string() -> Range<Int>? {
            let start = position
            position += 1
            while let byte = peek {
                position += 1
                if byte == UInt8(ascii: "\\") {
                    position += 1
                } else if byte == UInt8(ascii: "\"") {
                    return start..<position
                } else if byte < 0x20 {
                    return nil
                }
            }
            return nil
        }

        /// A number, `true`, `false` or `null`.
        mutating func scalar() -> Bool {
            let start = position
            while let byte = peek,
                byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            {
                position += 1
            }
            let word = String(decoding: bytes[start..<position], as: UTF8.self)
            if ["true", "false", "null"].contains(word) { return true }
            guard let first = word.unicodeScalars.first, first == "-" || ("0"..."9").contains(first) else {
                return false
            }
            return Double(word) != nil
        }

        /// A string literal's text.
        static func decoded(_ literal: ArraySlice<UInt8>) -> String? {
            guard literal.contains(UInt8(ascii: "\\")) else {
                return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self)
            }
            return try? JSONDecoder().decode(String.self, from: Data(literal))
        }
    }
}
