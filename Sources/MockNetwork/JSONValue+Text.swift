import Foundation

/// JSON values read from text and written as text.
extension JSONValue: CustomStringConvertible {
    /// The value that the JSON text `data` holds (UTF-8; a bare number, string, `true`, `false` or
    /// `null` included).
    ///
    /// - Throws: ``MockNetworkError/undecodableBody(_:)`` saying why the text is not JSON.
    public init(json data: Data) throws {
        if let value = JSONReader.value(in: data) {
            self = value
            return
        }
        do {
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            let text = String(decoding: data, as: UTF8.self)
            throw MockNetworkError.undecodableBody(
                (text.isEmpty ? "the empty text" : "the text \(MockRegistry.shortened(text))")
                    + " is not JSON: \(JSONValue.reason(error)). Give JSON text, such as {\"id\": 7}.")
        }
    }

    /// The value that the JSON text `text` holds.
    ///
    /// - Throws: ``MockNetworkError/undecodableBody(_:)`` saying why the text is not JSON.
    public init(json text: String) throws {
        try self.init(json: Data(text.utf8))
    }

    /// The value as compact JSON text, each object's keys sorted, so that equal values read the same:
    /// `{"id":7,"tags":["a"]}`.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    /// The value decoded into `type` with `decoder`, as if its JSON text had come in a body.
    ///
    /// - Throws: `DecodingError` from `decoder`.
    package func decode<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder) throws -> Value {
        try decoder.decode(type, from: Data(description.utf8))
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let bool): text += bool ? "true" : "false"
        case .number(let number): text += Self.text(of: number)
        case .string(let string): Self.write(string, to: &text)
        case .array(let elements):
            text += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.write(key, to: &text)
                text += ":"
                members[key]?.write(to: &text)
            }
            text += "}"
        }
    }

    /// A number as JSON writes it: an integer without a fraction (`7`, not `7.0`); `null` for a value
    /// JSON cannot hold (infinity, NaN).
    private static func text(of number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            return String(Int64(number))
        }
        return "\(number)"
    }

    private static func write(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Why decoding failed, without Foundation's wrapping.
    package static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "no key \"\(key.stringValue)\"" + path(context)
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            sentence(context.debugDescription) + path(context)
        default: "\(error)"
        }
    }

    /// `text` without its closing full stop, to go inside a sentence.
    private static func sentence(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? "" : " (at \(path))"
    }
}
