/// Header fields in the order they were sent, looked up by name without regard to case.
///
/// A name may repeat (`Set-Cookie`, or a list split over several fields): `values(for:)` gives each,
/// `self[name]` the first, and `combined(name)` all of them joined with `", "`, as RFC 9110 (5.3) allows
/// for list fields.
package struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One field: its name as sent and its value without surrounding whitespace.
    package struct Field: Sendable, Equatable {
        /// The name, with the case it was sent in.
        package var name: String
        /// The value.
        package var value: String

        /// A field with the given name and value.
        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Every field, in order.
    package private(set) var fields: [Field] = []

    /// No fields.
    package init() {}

    /// The given fields, in order.
    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    /// The given fields, in order (a name may repeat).
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of fields.
    package var count: Int { fields.count }

    /// The value of the first field named `name`, in any case.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// The value of every field named `name`, in order.
    package func values(for name: String) -> [String] {
        fields.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
    }

    /// The values of every field named `name` joined with `", "`, or nil when there is none.
    package func combined(_ name: String) -> String? {
        let values = values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The number of fields named `name`.
    package func count(of name: String) -> Int {
        var count = 0
        for field in fields where Self.sameName(field.name, name) { count += 1 }
        return count
    }

    /// Whether a field named `name` is present.
    package func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// The comma-separated elements of every field named `name`, trimmed and lowercased: the
    /// tokens of `Connection`, `Transfer-Encoding` or `Expect`.
    package func tokens(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { Self.trimmed($0).lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// Adds a field after the others.
    package mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Removes every field named `name`.
    package mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Replaces every field named `name` with one holding `value`.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// An iterator over the fields, in order.
    package func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// Whether two names are the same field name: equal but for the case of ASCII letters.
    package static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        // Native strings give their bytes at once; others are made native first.
        return a.withUTF8 { a in
            b.withUTF8 { b in
                for index in 0..<a.count where lowered(a[index]) != lowered(b[index]) { return false }
                return true
            }
        }
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func trimmed(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = text.lastIndex(where: { !isSpace($0) })!
        return String(text[first...last])
    }
}
