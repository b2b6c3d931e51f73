import Dispatch
import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A reader of `text/event-stream` bodies as the WHATWG HTML standard parses them (section 9.2.6),
/// written here from the standard so that the tests check MockNetwork's framing against it.
struct EventStreamReader {
    struct Event: Equatable {
        var type = "message"
        var data = ""
        var lastEventID = ""
    }

    private(set) var events: [Event] = []
    private(set) var retry: Int?
    private var buffer = ""
    private var dataBuffer = ""
    private var eventType = ""
    private var lastEventID = ""

    /// Reads `text`, which may end mid-line (the rest comes with the next call).
    mutating func read(_ text: String) {
        buffer += text
        while let end = buffer.firstIndex(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = String(buffer[..<end])
            buffer.removeSubrange(...end)
            process(line)
        }
    }

    private mutating func process(_ line: String) {
        if line.isEmpty {
            dispatch()
            return
        }
        if line.hasPrefix(":") { return }
        var field = line
        var value = ""
        if let colon = line.firstIndex(of: ":") {
            field = String(line[..<colon])
            value = String(line[line.index(after: colon)...])
            if value.hasPrefix(" ") { value.removeFirst() }
        }
        switch field {
        case "event": eventType = value
        case "data": dataBuffer += value + "\n"
        case "id": if !value.contains("\0") { lastEventID = value }
        case "retry": if let number = Int(value), value.allSatisfy(\.isASCII) { retry = number }
        default: break
        }
    }

    private mutating func dispatch() {
        defer { eventType = "" }
        guard !dataBuffer.isEmpty else { return }
        if dataBuffer.hasSuffix("\n") { dataBuffer.removeLast() }
        events.append(
            Event(type: eventType.isEmpty ? "message" : eventType, data: dataBuffer, lastEventID: lastEventID))
        dataBuffer = ""
    }
}
