import Foundation
import MockNetwork

/// Comparing a live operation's variables with those an archive recorded, where redaction replaced
/// secrets: the replacement fits any value, so a redacted recording still answers.
extension RequestMatch.GraphQLRule {
    /// Whether the variable `have` (absent when `nil`) fits `expected`: equal as JSON; or, for a
    /// rule an archive made, with each value redaction replaced fitting anything there.
    func fits(_ have: JSONValue?, _ expected: JSONValue) -> Bool {
        guard let have else { return false }
        if have == expected { return true }
        guard let redactedValue else { return false }
        return Self.fits(have, expected, redacted: redactedValue)
    }

    /// `have` against a recorded `expected`: a string that is `redacted` fits any value (a redacted
    /// number or object became that string); a string holding it fits a string with anything in its
    /// place (`"Bearer REDACTED"`); arrays and objects fit member by member.
    private static func fits(_ have: JSONValue, _ expected: JSONValue, redacted: String) -> Bool {
        switch expected {
        case .string(let text) where text == redacted:
            return true
        case .string(let text) where text.contains(redacted):
            guard case .string(let live) = have else { return false }
            return matches(live, pieces: text.components(separatedBy: redacted))
        case .array(let elements):
            guard case .array(let live) = have, live.count == elements.count else { return false }
            return zip(live, elements).allSatisfy { fits($0, $1, redacted: redacted) }
        case .object(let members):
            guard case .object(let live) = have, live.count == members.count else { return false }
            return members.allSatisfy { key, value in live[key].map { fits($0, value, redacted: redacted) } ?? false }
        default:
            return have == expected
        }
    }

    /// Whether `text` is `pieces` in order with anything (or nothing) between them.
    private static func matches(_ text: String, pieces: [String]) -> Bool {
        guard let first = pieces.first, let last = pieces.last, text.hasPrefix(first) else { return false }
        var rest = text.dropFirst(first.count)
        for piece in pieces.dropFirst().dropLast() {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.count >= last.count && rest.hasSuffix(last)
    }
}
