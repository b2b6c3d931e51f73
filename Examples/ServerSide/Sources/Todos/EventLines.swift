import Foundation

/// Server-sent events read from bytes as they arrive: gives the `data` of each event once the blank
/// line that ends it has come, whichever pieces the bytes came in.
struct EventLines {
    private var pending = Data()
    private var data: [String] = []

    /// Takes the next bytes; returns the `data` of each event they complete.
    mutating func append(_ bytes: Data) -> [String] {
        pending.append(bytes)
        var completed: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if !data.isEmpty { completed.append(data.joined(separator: "\n")) }
                data = []
            } else if line.hasPrefix("data:") {
                let value = line.dropFirst(5)
                data.append(String(value.hasPrefix(" ") ? value.dropFirst() : value))
            }
        }
        return completed
    }
}
