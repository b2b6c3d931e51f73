import Foundation

/// One server-sent event, as a client reads it.
public struct ChatStreamEvent: Equatable, Sendable {
    /// The event's type (`message` when the server named none).
    public var type: String
    /// The event's data, its `data:` lines joined by line breaks.
    public var data: String
}

/// Decodes a `text/event-stream` body as it arrives, as the WHATWG HTML standard's parsing rules
/// say: lines end with CR, LF or CR LF; `:` starts a comment; a blank line dispatches the event.
struct EventStreamDecoder {
    private var pending = Data()
    private var type = ""
    private var data: [String] = []

    /// The events that `bytes` completes (a piece may end mid-line or mid-event).
    mutating func decode(_ bytes: Data) -> [ChatStreamEvent] {
        pending.append(bytes)
        var events: [ChatStreamEvent] = []
        while let end = pending.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            let line = String(decoding: pending[pending.startIndex..<end], as: UTF8.self)
            var next = pending.index(after: end)
            if pending[end] == 0x0D, next < pending.endIndex, pending[next] == 0x0A {
                next = pending.index(after: next)
            }
            pending = Data(pending[next...])
            if let event = take(line) { events.append(event) }
        }
        return events
    }

    private mutating func take(_ line: String) -> ChatStreamEvent? {
        if line.isEmpty {
            defer { (type, data) = ("", []) }
            guard !data.isEmpty else { return nil }
            return ChatStreamEvent(type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"))
        }
        if line.hasPrefix(":") { return nil }
        let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        var value = parts.count > 1 ? String(parts[1]) : ""
        if value.hasPrefix(" ") { value.removeFirst() }
        switch parts[0] {
        case "event": type = value
        case "data": data.append(value)
        default: break  // id and retry matter to reconnecting, which this client does not do
        }
        return nil
    }
}
