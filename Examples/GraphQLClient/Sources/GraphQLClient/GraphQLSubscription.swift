import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension GraphQLClient {
    /// The results of a subscription as the server sends them over server-sent events (GraphQL over
    /// SSE): one value per `next` event, until `complete`. Stopping the iteration (or cancelling its
    /// task) cancels the request.
    public func subscribe<Variables: Encodable & Sendable, Value: Decodable & Sendable>(
        _ name: String, document: String, variables: Variables, as type: Value.Type
    ) -> AsyncThrowingStream<Value, any Error> {
        let request = Result {
            try self.request(name, document: document, variables: variables, accept: "text/event-stream")
        }
        return AsyncThrowingStream { continuation in
            let reader = EventReader { event in
                switch event.type {
                case "complete":
                    continuation.finish()
                case "next":
                    do {
                        let response = try JSONDecoder().decode(Response<Value>.self, from: Data(event.data.utf8))
                        if let data = response.data, response.errors.isEmpty {
                            continuation.yield(data)
                        } else {
                            continuation.finish(throwing: Failure.graphQL(response.errors.map(\.message)))
                        }
                    } catch {
                        continuation.finish(throwing: error)
                    }
                default:
                    break
                }
            } ended: { error in
                continuation.finish(throwing: error)
            }
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
            switch request {
            case .success(let request):
                let task = session.dataTask(with: request)
                continuation.onTermination = { ending in
                    if case .cancelled = ending { task.cancel() }
                    session.finishTasksAndInvalidate()
                }
                task.resume()
            case .failure(let error):
                continuation.finish(throwing: error)
                session.finishTasksAndInvalidate()
            }
        }
    }
}

/// Reads server-sent events from a data task's pieces as they arrive (on Linux too, where
/// `bytes(for:)` is missing), and hands each whole event on.
final class EventReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked`: `buffer` is only touched while `lock` is held; the closures are immutable.

    struct Event {
        var type = "message"
        var data = ""
    }

    private let lock = NSLock()
    private var buffer = ""
    private let received: @Sendable (Event) -> Void
    private let ended: @Sendable ((any Error)?) -> Void

    init(received: @escaping @Sendable (Event) -> Void, ended: @escaping @Sendable ((any Error)?) -> Void) {
        self.received = received
        self.ended = ended
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [Event] = lock.withLock {
            buffer += String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
            var events: [Event] = []
            // An event ends at a blank line.
            while let end = buffer.range(of: "\n\n") {
                var event = Event()
                var lines: [String] = []
                for line in buffer[..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
                    let (field, value) = Self.field(line)
                    if field == "event" { event.type = value }
                    if field == "data" { lines.append(value) }
                }
                event.data = lines.joined(separator: "\n")
                buffer.removeSubrange(..<end.upperBound)
                events.append(event)
            }
            return events
        }
        events.forEach(received)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        ended(error)
    }

    /// `event: next` → ("event", "next"); a comment (`: …`) has no field.
    private static func field(_ line: Substring) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (String(line), "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}
