import Foundation

/// URL text made valid by MockNetwork itself before Foundation reads it, so that every platform
/// reads a handler's URL, a `Location` or an archive's URL alike.
///
/// From iOS 17, macOS 14 and tvOS 17 (and in Linux's Foundation), `URL(string:)` reads by RFC 3986
/// and percent-encodes a component that holds a character a URL may not hold: a space, a letter
/// beyond ASCII, a `%` that starts no escape. Before them it returns `nil` for such text. Encoding
/// here first, as those versions do (the whole component, its valid escapes too: `a%20b c` is
/// `a%2520b%20c`), gives the same URL on every version. A host beyond ASCII is left as it is: its
/// IDNA form is Foundation's to make, and before iOS 17 such a URL stays unreadable.
package enum URLText {
    /// `text` with each component that holds a character a URL may not hold percent-encoded whole;
    /// `text` itself when it needs nothing, or is no URL reference this reads (then Foundation
    /// decides). An absolute URL (`scheme://authority/path?query#fragment`) or a reference relative to
    /// one (`/path?query`, `../path`, `?query`, `#fragment`, `//host/path`).
    package static func encodingInvalidCharacters(_ text: String) -> String {
        // Most text needs nothing: one pass over its bytes tells, with no copy made.
        guard text.utf8.contains(where: { !isAllowedAnywhere($0) }) else { return text }
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var index = 0
        // The scheme, when the text starts with one: letters, digits, `+`, `-`, `.`, then `:`.
        if let first = bytes.first, isLetter(first) {
            var end = 1
            while end < bytes.count, isSchemeByte(bytes[end]) { end += 1 }
            if end < bytes.count, bytes[end] == 0x3A {
                out += bytes[0...end]
                index = end + 1
            }
        }
        // The authority, after `//`: user info, host, port.
        if index + 1 < bytes.count, bytes[index] == 0x2F, bytes[index + 1] == 0x2F {
            out += [0x2F, 0x2F]
            index += 2
            let end = bytes[index...].firstIndex { $0 == 0x2F || $0 == 0x3F || $0 == 0x23 } ?? bytes.count
            guard let authority = self.authority(bytes[index..<end]) else { return text }
            out += authority
            index = end
        }
        let pathEnd = bytes[index...].firstIndex { $0 == 0x3F || $0 == 0x23 } ?? bytes.count
        out += component(bytes[index..<pathEnd], .path)
        index = pathEnd
        if index < bytes.count, bytes[index] == 0x3F {
            let queryEnd = bytes[(index + 1)...].firstIndex(of: 0x23) ?? bytes.count
            out.append(0x3F)
            out += component(bytes[(index + 1)..<queryEnd], .query)
            index = queryEnd
        }
        if index < bytes.count, bytes[index] == 0x23 {
            out.append(0x23)
            out += component(bytes[(index + 1)...], .fragment)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `URL(string:)` of the text, its invalid characters encoded first.
    package static func url(_ text: String) -> URL? {
        URL(string: encodingInvalidCharacters(text))
    }

    /// `URL(string:relativeTo:)` of the text (a `Location`, a path), its invalid characters encoded first.
    package static func url(_ text: String, relativeTo base: URL?) -> URL? {
        URL(string: encodingInvalidCharacters(text), relativeTo: base)
    }

    /// `URLComponents(string:)` of the text, its invalid characters encoded first.
    package static func components(_ text: String) -> URLComponents? {
        URLComponents(string: encodingInvalidCharacters(text))
    }

    private enum Part {
        case user, password, path, query, fragment
    }

    /// The authority with its user info encoded; `nil` for a port that is no number. A host that is
    /// not ASCII, or an IP literal in brackets, stays as it is.
    private static func authority(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var hostPort = bytes
        if let at = bytes.lastIndex(of: 0x40) {
            let info = bytes[bytes.startIndex..<at]
            if let colon = info.firstIndex(of: 0x3A) {
                out += component(info[info.startIndex..<colon], .user)
                out.append(0x3A)
                out += component(info[(colon + 1)...], .password)
            } else {
                out += component(info, .user)
            }
            out.append(0x40)
            hostPort = bytes[(at + 1)...]
        }
        if hostPort.first != 0x5B, let colon = hostPort.lastIndex(of: 0x3A) {
            guard hostPort[(colon + 1)...].allSatisfy(isDigit) else { return nil }
        }
        return out + hostPort
    }

    /// `bytes` as they are when every byte may stand in `part` (a `%` only before two hex digits), else
    /// every byte that may not, `%` included, percent-encoded.
    private static func component(_ bytes: ArraySlice<UInt8>, _ part: Part) -> [UInt8] {
        if isValid(bytes, part) { return Array(bytes) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in bytes {
            if byte != 0x25, isAllowed(byte, part) {
                out.append(byte)
            } else {
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return out
    }

    private static func isValid(_ bytes: ArraySlice<UInt8>, _ part: Part) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x25 {
                guard index + 2 < bytes.endIndex, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else { return false }
                index += 3
                continue
            }
            guard isAllowed(byte, part) else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986: unreserved characters and sub-delimiters everywhere; `:` in a password, a path, a
    /// query and a fragment; `@` and `/` in a path, a query and a fragment; `?` in a query and a fragment.
    private static func isAllowed(_ byte: UInt8, _ part: Part) -> Bool {
        // Unreserved: letters, digits, - . _ ~
        if isLetter(byte) || isDigit(byte) || [0x2D, 0x2E, 0x5F, 0x7E].contains(byte) { return true }
        // Sub-delimiters: ! $ & ' ( ) * + , ; =
        if [0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D].contains(byte) { return true }
        switch part {
        case .user: return false
        case .password: return byte == 0x3A
        case .path: return byte == 0x3A || byte == 0x40 || byte == 0x2F
        case .query, .fragment: return byte == 0x3A || byte == 0x40 || byte == 0x2F || byte == 0x3F
        }
    }

    /// Whether `byte` may stand in a URL wherever it is, as a delimiter or in any component but the
    /// user info: text of only these bytes needs no look at its components (a `%` is looked at, for a
    /// stray one, and `[` and `]`, which only an IP literal host may hold).
    private static func isAllowedAnywhere(_ byte: UInt8) -> Bool {
        byte != 0x25 && (isAllowed(byte, .query) || byte == 0x23)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isHex(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
