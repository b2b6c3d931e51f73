import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The timeout MockNetwork enforces for a request, the same way on every platform (Foundation
/// enforces none for a custom protocol on Linux, and not `timeoutIntervalForRequest` on Apple's).
enum Timeouts {
    /// The request's `timeoutInterval` when it was changed from the default, else the
    /// configuration's `timeoutIntervalForRequest`; never longer than its
    /// `timeoutIntervalForResource`. `.infinity` when there is none.
    ///
    /// `configuration` is that of the session that made the task: Foundation copies neither session
    /// timeout into the request a protocol sees.
    static func timeout(of request: URLRequest, configuration: URLSessionConfiguration?) -> TimeInterval {
        var timeout = request.timeoutInterval
        if let configuration {
            if request.timeoutInterval == defaultRequestTimeout, configuration.timeoutIntervalForRequest > 0 {
                timeout = configuration.timeoutIntervalForRequest
            }
            if configuration.timeoutIntervalForResource > 0 {
                timeout =
                    timeout > 0
                    ? min(timeout, configuration.timeoutIntervalForResource)
                    : configuration.timeoutIntervalForResource
            }
        }
        return timeout > 0 ? timeout : .infinity
    }

    /// The configuration's `timeoutIntervalForResource`, the most the whole exchange may take;
    /// `.infinity` when there is none.
    static func resourceTimeout(of configuration: URLSessionConfiguration?) -> TimeInterval {
        guard let configuration, configuration.timeoutIntervalForResource > 0 else { return .infinity }
        return configuration.timeoutIntervalForResource
    }

    /// Why a response's `delay` ends its request with a timeout: it is as long as the timeout or
    /// longer, or only `remaining` seconds of it were left (earlier redirects' delays, the handler).
    /// The timeout is named as the one that set it: the session's `timeoutIntervalForResource` when
    /// that is the shorter, else the request's.
    static func delayMessage(
        delay: TimeInterval, remaining: TimeInterval, timeout: TimeInterval, resourceTimeout: TimeInterval
    ) -> String {
        let name =
            resourceTimeout <= timeout
            ? "the session's timeoutIntervalForResource of \(seconds(timeout))"
            : "the request's timeout of \(seconds(timeout))"
        let start = "MockNetwork: the response's delay of \(seconds(delay))"
        if delay > timeout { return "\(start) is longer than \(name)." }
        if delay == timeout { return "\(start) is as long as \(name)." }
        let left = String(format: "%g s", (max(0, remaining) * 100).rounded() / 100)
        return "\(start) goes past \(name): only \(left) of it were left, the rest spent "
            + "before this answer (on earlier redirects' delays, or in the handler)."
    }

    /// `value` seconds as a message says them: `0.4 s`, `1 s`.
    static func seconds(_ value: TimeInterval) -> String {
        String(format: "%g s", (value * 1000).rounded() / 1000)
    }

    /// `URLRequest`'s own default `timeoutInterval`.
    static let defaultRequestTimeout: TimeInterval = 60
}

/// Timeouts MockNetwork enforces itself: Foundation enforces none for a custom protocol on Linux,
/// nor `timeoutIntervalForRequest` on Apple platforms. One timer serves every pending deadline.
final class Deadlines: Sendable {
    static let shared = Deadlines()

    private struct Pending {
        let deadline: DispatchTime
        let expire: @Sendable () -> Void
    }

    private struct State {
        var pending: [Int: Pending] = [:]
        var nextToken = 0
        /// When the timer fires next, `nil` while it is idle.
        var firesAt: DispatchTime?
        let timer: any DispatchSourceTimer
    }

    private let queue = DispatchQueue(label: "MockNetwork.deadlines")
    private let state: Locked<State>

    private init() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        state = Locked(State(timer: timer))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    /// Calls `expire` at `deadline` unless ``cancel(_:)`` comes first; returns the token for that.
    func add(_ deadline: DispatchTime, expire: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.nextToken += 1
            state.pending[state.nextToken] = Pending(deadline: deadline, expire: expire)
            if state.firesAt.map({ deadline < $0 }) ?? true {
                state.firesAt = deadline
                state.timer.schedule(deadline: deadline, leeway: .milliseconds(1))
            }
            return state.nextToken
        }
    }

    func cancel(_ token: Int) {
        _ = state.withLock { $0.pending.removeValue(forKey: token) }
    }

    private func fire() {
        let now = DispatchTime.now()
        let expired: [@Sendable () -> Void] = state.withLock { state in
            var expired: [@Sendable () -> Void] = []
            var next: DispatchTime?
            for (token, pending) in state.pending {
                if pending.deadline <= now {
                    expired.append(pending.expire)
                    state.pending[token] = nil
                } else if next.map({ pending.deadline < $0 }) ?? true {
                    next = pending.deadline
                }
            }
            state.firesAt = next
            if let next { state.timer.schedule(deadline: next, leeway: .milliseconds(1)) }
            return expired
        }
        for expire in expired { expire() }
    }
}
