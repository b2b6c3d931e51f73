import Foundation

/// The keys URLs are filed under, one per way of matching the query.
package enum URLKeys {
    static func key(_ url: URL, _ query: RequestMatch.Query) -> String {
        key(url.absoluteString, query)
    }

    /// The key of a URL's absolute string. Searched as UTF-8 bytes: searching a String by
    /// Character walks grapheme clusters, and this runs on every request.
    static func key(_ absolute: String, _ query: RequestMatch.Query) -> String {
        var text = absolute
        text.makeContiguousUTF8()
        let (hash, mark) =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                (bytes.firstIndex(of: UInt8(ascii: "#")), bytes.firstIndex(of: UInt8(ascii: "?")))
            } ?? (nil, nil)
        if let hash { text = String(decoding: text.utf8.prefix(hash), as: UTF8.self) }
        guard query != .exact, let mark, mark < (hash ?? Int.max) else { return text }
        let base = String(decoding: text.utf8.prefix(mark), as: UTF8.self)
        switch query {
        case .exact: return text
        case .ignored: return base
        case .anyOrder:
            let items = text.utf8.dropFirst(mark + 1).split(separator: UInt8(ascii: "&")).map {
                String(decoding: $0, as: UTF8.self)
            }.sorted()
            return base + "?" + items.joined(separator: "&")
        }
    }

    /// What `URL(string: text)?.absoluteString` is, or `nil` when `text` is no absolute URL.
    ///
    /// Registering thousands of handlers parses thousands of URLs, and parsing is most of the cost
    /// of a registration; a string in the plain form most URLs take (`scheme://host.name:port/path?query`,
    /// percent escapes of two hex digits, no user, nothing to encode) is already its own absolute string,
    /// so that form skips the parse.
    package static func absoluteString(_ text: String) -> String? {
        if isPlainAbsolute(text) { return text }
        guard let url = URLText.url(text), url.scheme != nil else { return nil }
        // Copied into a string of Swift's own: the one `URL` gives for a string it had to encode
        // is not marked as ASCII, and hashing it (the table files routes by it) took 8 times as long.
        return String(decoding: url.absoluteString.utf8, as: UTF8.self)
    }

    static func isPlainAbsolute(_ text: String) -> Bool {
        var text = text
        text.makeContiguousUTF8()
        return text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            // scheme
            var index = 0
            guard let first = bytes.first, isLetter(first) else { return false }
            while index < bytes.count,
                isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == 0x2B
                    || bytes[index] == 0x2D || bytes[index] == 0x2E
            {
                index += 1
            }
            // "://"
            guard index + 3 <= bytes.count, bytes[index] == 0x3A, bytes[index + 1] == 0x2F, bytes[index + 2] == 0x2F
            else { return false }
            index += 3
            // host: letters, digits, dots and hyphens only, starting with a letter or digit
            let hostStart = index
            while index < bytes.count,
                isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == 0x2E
                    || bytes[index] == 0x2D
            {
                index += 1
            }
            guard index > hostStart, isLetter(bytes[hostStart]) || isDigit(bytes[hostStart]) else { return false }
            // a port: ":" and 1 to 5 digits, kept as written
            if index < bytes.count, bytes[index] == 0x3A {
                let portStart = index + 1
                index = portStart
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
                guard (1...5).contains(index - portStart) else { return false }
            }
            guard index == bytes.count || bytes[index] == 0x2F else { return false }  // then a path, or nothing
            // path, query and at most one fragment: characters that are never encoded
            var fragments = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x23 {
                    fragments += 1
                    if fragments > 1 { return false }
                } else if byte == 0x25 {
                    // a percent escape with two hex digits is kept as written; any other `%` is encoded
                    guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                        return false
                    }
                    index += 2
                } else if !isLetter(byte) && !isDigit(byte) && !isPlainPunctuation(byte) {
                    return false
                }
                index += 1
            }
            return true
        } ?? false
    }

    /// `- . _ ~ ! $ & ' ( ) * + , ; = : @ / ?`: unreserved characters, sub-delimiters and the
    /// separators a path and query may hold.
    private static func isPlainPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24, 0x26...0x2F, 0x3A, 0x3B, 0x3D, 0x3F, 0x40, 0x5F, 0x7E: return true
        default: return false
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}
