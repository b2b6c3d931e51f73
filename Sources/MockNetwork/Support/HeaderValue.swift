import Foundation

/// A header field's value and its parameters, as `Content-Type`, `Content-Disposition` and each
/// member of `Accept` have them: `multipart/form-data; boundary="simple boundary"` (RFC 9110, 5.6.6).
package struct HeaderValue: Equatable {
    /// What comes before the first `;`, trimmed, as it was written (`multipart/form-data`).
    package var value: String
    /// Each parameter by its name, lowercased; a quoted value unquoted (`\"` read as `"`).
    package var parameters: [String: String]

    /// `value`, lowercased, for comparing media types (which are case-insensitive).
    package var lowercased: String { value.lowercased() }

    package init(_ field: String) {
        let pieces = Self.split(field, at: ";")
        value = pieces.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        var parameters: [String: String] = [:]
        for piece in pieces.dropFirst() {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard !name.isEmpty, parameters[name] == nil else { continue }
            parameters[name] = Self.unquoted(piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        }
        self.parameters = parameters
    }

    /// The members of a list field such as `Accept`, split at commas outside quoted strings.
    package static func list(_ field: String) -> [HeaderValue] {
        split(field, at: ",").map(HeaderValue.init).filter { !$0.value.isEmpty }
    }

    /// `text` split at `separator` where it is not inside a quoted string.
    private static func split(_ text: String, at separator: Character) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces
    }

    /// A parameter's value without its quotes and escapes; a value that is no quoted string as it is.
    private static func unquoted(_ text: String) -> String {
        guard text.hasPrefix("\"") else { return text }
        var value = ""
        var escaped = false
        for character in text.dropFirst() {
            if escaped {
                value.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                value.append(character)
            }
        }
        return value
    }
}
