import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A small chat client for an LLM-style API that streams its reply as server-sent events:
/// `{"delta": "…"}` events, then an event named `done`. It reads the stream through a session data
/// delegate, so each piece is decoded as it arrives (on Linux too, where `bytes(for:)` is missing).
public final class ChatClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked`: `streams` is only touched while `lock` is held; the session is immutable.

    private struct Delta: Decodable { let delta: String }

    private let endpoint: URL
    private let lock = NSLock()
    private var streams:
        [Int: (decoder: EventStreamDecoder, continuation: AsyncThrowingStream<String, any Error>.Continuation)] = [:]
    private lazy var session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    private let configuration: URLSessionConfiguration
    private let ended: (@Sendable ((any Error)?) -> Void)?

    /// A client that sends prompts to `endpoint` with sessions made from `configuration`;
    /// `ended` hears how each request ended (`nil` when whole), for logging.
    public init(
        endpoint: URL, configuration: URLSessionConfiguration = .default,
        ended: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.ended = ended
    }

    /// The reply to `prompt`, a piece of text at a time as the server streams it. Stopping the
    /// iteration (or cancelling its task) cancels the request.
    public func reply(to prompt: String) -> AsyncThrowingStream<String, any Error> {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONEncoder().encode(["prompt": prompt])
        let task = lock.withLock { session.dataTask(with: request) }
        return AsyncThrowingStream { continuation in
            lock.withLock { streams[task.taskIdentifier] = (EventStreamDecoder(), continuation) }
            continuation.onTermination = { ending in
                if case .cancelled = ending { task.cancel() }
            }
            task.resume()
        }
    }

    /// Decodes the events a piece of the body completes, and passes their text on.
    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (events, continuation) = lock.withLock {
            () -> ([ChatStreamEvent], AsyncThrowingStream<String, any Error>.Continuation?) in
            guard var stream = streams[dataTask.taskIdentifier] else { return ([], nil) }
            let events = stream.decoder.decode(data)
            streams[dataTask.taskIdentifier] = stream
            return (events, stream.continuation)
        }
        guard let continuation else { return }
        for event in events {
            if event.type == "done" {
                continuation.finish()
                return
            }
            if let delta = try? JSONDecoder().decode(Delta.self, from: Data(event.data.utf8)) {
                continuation.yield(delta.delta)
            }
        }
    }

    /// Ends the reply: as the server ended it, or with the error.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let stream = lock.withLock { streams.removeValue(forKey: task.taskIdentifier) }
        stream?.continuation.finish(throwing: error)
        ended?(error)
    }

    /// Ends the client's session once its requests are over.
    public func close() {
        lock.withLock { session }.finishTasksAndInvalidate()
    }
}

/// A chat screen's state: the reply so far, and whether the first piece is still awaited.
@MainActor
public final class ChatModel {
    /// The reply so far.
    public private(set) var reply = ""
    /// Whether a prompt was sent and no piece of its reply has come yet.
    public private(set) var isWaitingForReply = false
    /// How the last reply failed, if it did.
    public private(set) var error: (any Error)?
    private let client: ChatClient

    /// A model that sends prompts with `client`.
    public init(client: ChatClient) { self.client = client }

    /// Sends `prompt` and shows the reply as it streams in.
    public func send(_ prompt: String) async {
        (reply, error, isWaitingForReply) = ("", nil, true)
        defer { isWaitingForReply = false }
        do {
            for try await piece in client.reply(to: prompt) {
                isWaitingForReply = false
                reply += piece
            }
        } catch {
            self.error = error
        }
    }
}
