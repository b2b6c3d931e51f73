import Foundation

/// The directives of a `Cache-Control` field: `no-store`, `max-age=60`, …
struct CacheDirectives {
    private var directives: [String: String] = [:]

    init(_ field: String?) {
        guard let field else { return }
        for part in field.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard let name = pieces.first?.trimmingCharacters(in: .whitespaces).lowercased(), !name.isEmpty else {
                continue
            }
            let value = pieces.count > 1 ? pieces[1].trimmingCharacters(in: CharacterSet(charactersIn: " \"")) : ""
            directives[name] = value
        }
    }

    func has(_ name: String) -> Bool { directives[name] != nil }

    /// A directive's number of seconds, such as `max-age`'s: a whole number, and 0 (stale at once)
    /// for a value that is none, as RFC 9111 (1.2.2) asks.
    static let largestDelta: TimeInterval = 2_147_483_648

    func seconds(_ name: String) -> TimeInterval? {
        guard let value = directives[name] else { return nil }
        // Delta-seconds: digits only, else 0; beyond 2^31 it counts as 2^31 (RFC 9111, 1.2.2).
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return 0 }
        return min(Double(value) ?? Self.largestDelta, Self.largestDelta)
    }
}

/// HTTP dates (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    static func parse(_ field: String?) -> Date? {
        guard let field else { return nil }
        return formatter().date(from: field)
    }

    static func string(_ date: Date) -> String { formatter().string(from: date) }

    /// A new formatter each time (`DateFormatter` is not `Sendable`); only cached sessions use it.
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter
    }
}
