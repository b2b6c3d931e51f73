import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where one request stands inside its `MockURLProtocol`: the state every thread that touches the
/// request (Foundation's, a handler's, a timer's) reads and writes under one lock.
///
/// A request is `new` until `startLoading` begins it, `working` while a handler, a delay, a session
/// delegate or the network is busy with it, `ready` once its answer waits to be delivered from the
/// client's context, `streaming` while a body that arrives over time is delivered piece by piece,
/// and `done` once delivered or cancelled. `stopped` says that `stopLoading` came
/// (a suspend or a cancel) and no `startLoading` since: nothing reaches the client while it is set.
struct Exchange {
    enum Phase {
        case new
        case working
        case ready(MockRegistry.Answer)
        case streaming(BodyStream)
        case done
    }

    /// What the request is waiting for while `working`, for the message when its timeout comes first.
    enum Waiting {
        case handler
        /// Held by `hold(_:)` until the test releases it.
        case held
        case delay
        case delegate
        case network
    }

    var phase = Phase.new
    var stopped = false
    var waiting = Waiting.handler
    weak var registry: MockRegistry.Core?
    /// The configuration of the session that made the task, as Foundation froze it (see
    /// `TaskInternals.session(of:)`): its timeouts, headers, cookies and cache.
    var configuration: URLSessionConfiguration?
    /// The request's timeout in seconds (`.infinity` for none), and when it ends.
    var timeout: TimeInterval = .infinity
    var deadline = DispatchTime.distantFuture
    /// The session's `timeoutIntervalForResource` (`.infinity` for none), and when it ends: it bounds
    /// the whole exchange, a body that arrives over time included.
    var resourceTimeout: TimeInterval = .infinity
    var resourceDeadline = DispatchTime.distantFuture
    /// The pending timeout in ``Deadlines``.
    var timeoutToken: Int?
    /// Since when the request's handler waits for a thread of its registry's share (`nil` while it
    /// runs): a timeout that comes meanwhile names what it waits behind, not the handler.
    var queuedSince: DispatchTime?
    /// The pending wake-up of a delay, or of a stream's next piece.
    var delay: DispatchWorkItem?
    /// The error a streaming body ends with at its next turn, instead of its next piece (the test ended).
    var streamCut: (any Error)?
    /// The task an `async` handler runs in, cancelled when the request ends first.
    var handlerTask: Task<Void, Never>?
    var passthrough: URLSessionTask?
    /// The session's URL cache, for what the handlers answer (nil when the configuration has none).
    var caching: HTTPCaching?
    /// Whether Foundation is inside this protocol's `startLoading` now (the client's context on Linux).
    var insideStartLoading = false
    #if !canImport(FoundationNetworking)
        /// The thread `startLoading` ran on: every client call is made there on Apple platforms.
        var clientThread: ClientThread?
    #endif

    /// What `startLoading` does: begin the request, deliver an answer that is ready, or wait.
    enum Entry {
        case begin
        case deliver(MockRegistry.Answer)
        /// Resumed after a suspend while the body was streaming: deliver what is due.
        case resumeStream
        case wait
    }

    mutating func enterStartLoading() -> Entry {
        insideStartLoading = true
        switch phase {
        case .new:
            phase = .working
            return .begin
        case .ready(let answer):
            // Resumed after a suspend (or, on Linux, back through `resume()` when the answer could not
            // be delivered from the thread that had it).
            stopped = false
            phase = .done
            return .deliver(answer)
        case .working:
            // Resumed after a suspend: the answer is delivered when it is ready.
            stopped = false
            return .wait
        case .streaming:
            stopped = false
            return .resumeStream
        case .done:
            return .wait
        }
    }

    /// Keeps `answer` for delivery; whether to go back to the client for it now, the pending timeout
    /// to cancel, and an async handler's task to cancel (the answer is a timeout, or the registry
    /// went, while it ran). A request that is no longer `working` (timed out, released, cancelled)
    /// ignores later answers.
    mutating func ready(_ answer: MockRegistry.Answer) -> (
        deliver: Bool, timeoutToken: Int?, handlerTask: Task<Void, Never>?
    ) {
        guard case .working = phase else { return (false, nil, nil) }
        phase = .ready(answer)
        defer { (timeoutToken, handlerTask) = (nil, nil) }
        // While `startLoading` is still running, it delivers the answer itself as it returns.
        return (!stopped && !insideStartLoading, timeoutToken, handlerTask)
    }

    /// The answer to deliver now, if one is ready and the request was not stopped.
    mutating func take() -> MockRegistry.Answer? {
        guard !stopped, case .ready(let answer) = phase else { return nil }
        phase = .done
        return answer
    }

    /// Leaves `startLoading`, unless an answer became ready meanwhile: that one is to be delivered first.
    mutating func leaveStartLoading() -> MockRegistry.Answer? {
        if let answer = take() { return answer }
        insideStartLoading = false
        return nil
    }

    var isWorking: Bool {
        if case .working = phase { return true }
        return false
    }
}
