import Foundation

/// A JSON value, compared as JSON means it: numbers by value (`7 == 7.0`), objects whatever the
/// order of their keys.
///
/// A GraphQL operation's variables and extensions are JSON values, and a literal spells one:
/// ```swift
/// XCTAssertEqual(operation.variables["id"], 7)
/// XCTAssertEqual(operation.variables["filter"], ["tags": ["a", "b"], "limit": 10])
/// ```
///
/// A number is a `Double`, which holds every GraphQL `Int` (32 bits) and `Float` exactly; a larger
/// integer compares by its nearest `Double`.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object, its keys in no order.
    case object([String: JSONValue])

    /// The member `key` of an object; `nil` for a value that is no object or has no such member.
    public subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The element at `index` of an array; `nil` for a value that is no array or an index outside it.
    public subscript(_ index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, for a string; `nil` for any other value (a number is no string: `7` has none,
    /// `"7"` has `"7"`).
    ///
    /// ```swift
    /// let id = operation.variables["id"]?.stringValue  // "7", as Apollo iOS sends an ID
    /// ```
    public var stringValue: String? {
        guard case .string(let string) = self else { return nil }
        return string
    }

    /// The number, for a number; `nil` for any other value (a string that holds one included).
    public var numberValue: Double? {
        guard case .number(let number) = self else { return nil }
        return number
    }

    /// The number as an `Int`, for a number that is a whole one an `Int` holds (`7`, `7.0`); `nil`
    /// for any other value (`7.5`, `"7"`), as for a GraphQL `Int`.
    public var intValue: Int? {
        guard case .number(let number) = self else { return nil }
        return Int(exactly: number)
    }

    /// The boolean, for `true` or `false`; `nil` for any other value.
    public var boolValue: Bool? {
        guard case .bool(let bool) = self else { return nil }
        return bool
    }

    /// The elements, for an array; `nil` for any other value.
    public var arrayValue: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }

    /// The members, for an object; `nil` for any other value.
    public var objectValue: [String: JSONValue]? {
        guard case .object(let members) = self else { return nil }
        return members
    }

    /// What the value is, as a message says it ("an object", "a number").
    package var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`, from `nil`.
    public init(nilLiteral: ()) { self = .null }

    /// A boolean, from `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// A number, from an integer literal.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }

    /// A number, from a floating-point literal.
    public init(floatLiteral value: Double) { self = .number(value) }

    /// A string, from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }

    /// An array, from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// An object, from a dictionary literal (a key given twice keeps its last value).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { $1 }))
    }
}

extension JSONValue: Codable {
    /// The JSON value `decoder` holds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value as JSON.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let bool): try container.encode(bool)
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .array(let array): try container.encode(array)
        case .object(let object): try container.encode(object)
        }
    }
}
