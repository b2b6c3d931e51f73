import Foundation
import MockNetwork

/// The operations a GraphQL document defines, found as the GraphQL specification's grammar
/// (sections 2.1 and 2.3) lays them out, without parsing the rest.
///
/// Ignored tokens (white space, line terminators, commas, a byte order mark, `#` comments) and
/// strings (`"…"` with escapes, block strings `"""…"""`) are skipped, so neither a comment nor a
/// string that holds `query Fake {` counts. At the top level, `query`, `mutation` or
/// `subscription` starts an operation (its name follows, when it has one), a lone selection set
/// `{ … }` is an anonymous query, and anything else (`fragment`, or a type system definition with a
/// body) is skipped; a definition ends where its top-level `{ … }` closes. An operation whose
/// definition reaches no `{ … }` (free text such as `subscription plans`) is noted as having no
/// selection set: the grammar requires one.
enum GraphQLDocument {
    /// One operation definition: its type and, unless it is anonymous, its name.
    struct Operation: Equatable, Sendable {
        var type: GraphQLOperation.OperationType
        var name: String?
        /// Whether its definition has its selection set (`{ … }`), as every operation must.
        var hasSelectionSet = true
    }

    /// A string that never ends, which makes the rest of the document unreadable.
    struct UnterminatedString: Error {
        /// The line it starts on, counted from 1.
        let line: Int
        /// Whether it is a block string (`"""`).
        let block: Bool
    }

    private enum Token {
        case name(String)
        case open(UInt8)
        case close(UInt8)
        case other
    }

    /// Where the scan is at the top level of the document.
    private enum Place {
        /// Between definitions.
        case between
        /// Right after `query`, `mutation` or `subscription`: a name here names the operation.
        case afterKeyword
        /// Inside a definition, until its top-level `{ … }` closes.
        case inside
    }

    /// ``operations(in:)``, remembered for the documents read lately: an app sends the same few
    /// documents again and again, and a lookup reads the request's on every request (hashing a
    /// document costs a fraction of reading it). At most 64 are kept; then the memory starts anew.
    static func recentOperations(in document: String) throws -> [Operation] {
        if let known = recent.withLock({ $0[document] }) { return known }
        let operations = try operations(in: document)
        recent.withLock { recent in
            if recent.count >= 64 { recent.removeAll(keepingCapacity: true) }
            recent[document] = operations
        }
        return operations
    }

    private static let recent = Locked([String: [Operation]]())

    /// The operations `document` defines, in order.
    ///
    /// - Throws: ``UnterminatedString`` for a string that never ends.
    static func operations(in document: String) throws -> [Operation] {
        let bytes = Array(document.utf8)
        var operations: [Operation] = []
        var depth = 0
        var place = Place.between
        // Whether the definition the scan is in is an operation that began with its keyword.
        var inOperation = false
        var index = 0
        while let token = try next(in: bytes, at: &index) {
            guard depth == 0 else {
                if case .open = token { depth += 1 }
                if case .close(let byte) = token {
                    depth -= 1
                    if depth == 0 && byte == UInt8(ascii: "}") { place = .between }
                }
                continue
            }
            switch (place, token) {
            case (.between, .name(let word)):
                if let type = GraphQLOperation.OperationType(rawValue: word) {
                    operations.append(Operation(type: type, hasSelectionSet: false))
                    inOperation = true
                    place = .afterKeyword
                } else {
                    inOperation = false
                    place = .inside
                }
            case (.between, .open(let byte)):
                inOperation = false
                if byte == UInt8(ascii: "{") { operations.append(Operation(type: .query)) }
                depth = 1
                place = .inside
            case (.afterKeyword, .name(let name)):
                operations[operations.count - 1].name = name
                place = .inside
            case (_, .open(let byte)):
                // An operation's selection set: the only `{` at its top level (variables' defaults
                // and directives' arguments are inside brackets of their own).
                if inOperation, byte == UInt8(ascii: "{") { operations[operations.count - 1].hasSelectionSet = true }
                depth = 1
                place = .inside
            case (_, .close):
                break  // a stray closing bracket: not GraphQL, and nothing to count
            case (_, .name), (_, .other):
                place = .inside
            }
        }
        return operations
    }

    /// The next token from `index` on, past ignored tokens and strings (which count as `.other`);
    /// `nil` at the end.
    private static func next(in bytes: [UInt8], at index: inout Int) throws -> Token? {
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","):
                index += 1
            case 0xEF where bytes[index...].starts(with: [0xEF, 0xBB, 0xBF]):
                index += 3
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
            case UInt8(ascii: "\""):
                try skipString(in: bytes, at: &index)
                return .other
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                index += 1
                return .open(byte)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                index += 1
                return .close(byte)
            case _ where isNameStart(byte):
                let start = index
                while index < bytes.count, isNameStart(bytes[index]) || (0x30...0x39).contains(bytes[index]) {
                    index += 1
                }
                return .name(String(decoding: bytes[start..<index], as: UTF8.self))
            default:
                index += 1
                return .other
            }
        }
        return nil
    }

    /// Moves `index` past the string that starts there: a block string ends at `"""` (`\"""` is an
    /// escaped one), a string at an unescaped `"` on the same line.
    private static func skipString(in bytes: [UInt8], at index: inout Int) throws {
        let start = index
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        if isTripleQuote(bytes, at: index) {
            index += 3
            while index < bytes.count {
                if bytes[index] == backslash, isTripleQuote(bytes, at: index + 1) {
                    index += 4
                } else if isTripleQuote(bytes, at: index) {
                    index += 3
                    return
                } else {
                    index += 1
                }
            }
            throw UnterminatedString(line: line(of: start, in: bytes), block: true)
        }
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case backslash: index += 2
            case quote:
                index += 1
                return
            case 0x0A, 0x0D: throw UnterminatedString(line: line(of: start, in: bytes), block: false)
            default: index += 1
            }
        }
        throw UnterminatedString(line: line(of: start, in: bytes), block: false)
    }

    /// Whether `"""` starts at `index` (compared in place: a slice's `starts(with:)` made an array a
    /// byte, and a block string took about a second a megabyte).
    private static func isTripleQuote(_ bytes: [UInt8], at index: Int) -> Bool {
        let quote = UInt8(ascii: "\"")
        return index + 2 < bytes.count && bytes[index] == quote && bytes[index + 1] == quote
            && bytes[index + 2] == quote
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_")
    }

    private static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        bytes[..<offset].reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}
