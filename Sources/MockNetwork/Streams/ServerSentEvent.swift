import Foundation

/// One server-sent event, framed for a `text/event-stream` body as the WHATWG HTML standard says:
/// `id:`, `event:`, `retry:` and `data:` lines (one `data:` line for each line of ``data``), comment
/// lines starting with `:`, and a blank line that ends the event.
///
/// ```swift
/// mocks.register("https://api.example.com/v1/chat") { _ in
///     .events(
///         [.init(data: #"{"delta":"Hel"}"#), .init(data: #"{"delta":"lo"}"#), .init(event: "done", data: "")],
///         every: .milliseconds(50))
/// }
/// ```
public struct ServerSentEvent: Sendable, Equatable {
    /// The event's `id:` (a client sends the last one it saw as `Last-Event-ID` when it reconnects).
    public var id: String?
    /// The event's type (`event:`); a client reads an event without one as `message`.
    public var event: String?
    /// The event's data, one `data:` line per line. `nil` sends no `data:` line: a client then
    /// dispatches no event (a comment or a `retry:` alone, for instance).
    public var data: String?
    /// How long a client waits before it reconnects, in milliseconds (`retry:`).
    public var retry: Int?
    /// A comment, sent as `:` lines before the fields; clients ignore it (servers send them to keep
    /// a connection open).
    public var comment: String?

    /// An event with the given fields; each is left out when `nil`.
    public init(id: String? = nil, event: String? = nil, data: String? = nil, retry: Int? = nil, comment: String? = nil)
    {
        self.id = id
        self.event = event
        self.data = data
        self.retry = retry
        self.comment = comment
    }

    /// The event as it goes on the wire, ending with the blank line that dispatches it.
    ///
    /// - Throws: ``MockNetworkError/invalidStream(_:)`` when `id` or `event` holds a line break (the
    ///   format cannot carry one there), `id` holds a NUL, or `retry` is negative.
    public func framed() throws -> String {
        func invalid(_ what: String) -> MockNetworkError {
            .invalidStream(
                "the server-sent event's \(what). Put line breaks only in data (each line becomes a data: line) "
                    + "or in comment.")
        }
        var lines: [String] = []
        if let comment {
            lines += Self.lines(of: comment).map { $0.isEmpty ? ":" : ": \($0)" }
        }
        if let id {
            guard !id.contains(where: \.isNewline) else { throw invalid("id \(Self.quoted(id)) holds a line break") }
            guard !id.contains("\0") else { throw invalid("id \(Self.quoted(id)) holds a NUL, which clients ignore") }
            lines.append(Self.field("id", id))
        }
        if let event {
            guard !event.contains(where: \.isNewline) else {
                throw invalid("event \(Self.quoted(event)) holds a line break")
            }
            lines.append(Self.field("event", event))
        }
        if let retry {
            guard retry >= 0 else {
                throw MockNetworkError.invalidStream(
                    "the server-sent event's retry is \(retry) ms; give a number of milliseconds, 0 or more.")
            }
            lines.append("retry: \(retry)")
        }
        if let data {
            lines += Self.lines(of: data).map { Self.field("data", $0) }
        }
        return lines.map { $0 + "\n" }.joined() + "\n"
    }

    /// `name: value`, or `name:` for an empty value. (A reader drops one space after the colon, so a
    /// value that starts with a space keeps it.)
    private static func field(_ name: String, _ value: String) -> String {
        value.isEmpty ? "\(name):" : "\(name): \(value)"
    }

    /// The lines of `text`, split at CR LF, CR or LF, as a reader splits the stream.
    private static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        for character in text {
            // `\r\n` is one `Character` in Swift.
            if character == "\r\n" || character == "\r" || character == "\n" {
                lines.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        lines.append(current)
        return lines
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
