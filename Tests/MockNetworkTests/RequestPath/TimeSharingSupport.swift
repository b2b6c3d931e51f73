import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers for the time-isolation tests: waits on events (never sleeps), run on threads of their
// own so they hold neither a thread of the concurrency pool nor one of Dispatch's, and a watchdog
// that says how far the work got before it ends a hung run.

/// A gate that blocks whoever waits on it until the test opens it, once, for everyone.
final class Latch: @unchecked Sendable {  // `isOpen` is only read and written while `condition` is locked
    private let condition = NSCondition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Blocks until the latch is open.
    func wait() {
        condition.lock()
        while !isOpen { condition.wait() }
        condition.unlock()
    }
}

/// A count that some threads add to and others wait on.
final class Tally: @unchecked Sendable {  // `count` is only read and written while `condition` is locked
    private let condition = NSCondition()
    private var count = 0

    /// Adds one; returns the new count.
    @discardableResult
    func add() -> Int {
        condition.lock()
        defer { condition.unlock() }
        count += 1
        condition.broadcast()
        return count
    }

    var current: Int {
        condition.lock()
        defer { condition.unlock() }
        return count
    }

    /// Blocks until the count reaches `target` (true) or `seconds` have passed (false).
    func wait(for target: Int, upTo seconds: TimeInterval = .infinity) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard seconds.isFinite else {
            // Not `wait(until: .distantFuture)`: on Linux that traps converting the date.
            while count < target { condition.wait() }
            return true
        }
        let limit = Date(timeIntervalSinceNow: seconds)
        while count < target, condition.wait(until: limit) {}
        return count >= target
    }
}

/// Runs `body`, which may block, on a thread of its own, and returns what it gives: the caller's
/// task waits without holding a thread of the concurrency pool, and nothing waits on Dispatch,
/// whose threads a hang may have used up.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

/// What became of one request fired by ``Fired``.
struct Outcome: Sendable {
    var status: Int?
    var text: String
    /// The error's description, `nil` when there was none.
    var error: String?
    var timedOut: Bool
    /// From `resume()` to the completion handler.
    var seconds: Double

    init(_ data: Data?, _ response: URLResponse?, _ error: (any Error)?, seconds: Double) {
        status = (response as? HTTPURLResponse)?.statusCode
        text = String(decoding: data ?? Data(), as: UTF8.self)
        self.error = error.map { "\($0.localizedDescription)" }
        timedOut = (error as? URLError)?.code == .timedOut
        self.seconds = seconds
    }
}

/// `count` requests resumed at once with completion handlers (no task of the concurrency pool
/// waits on them), and what became of each.
final class Fired: Sendable {
    let count: Int
    let done = Tally()
    private let outcomes = Shared<[Outcome]>([])

    /// Made before the requests start, so that a watchdog set up meanwhile can read the tally:
    /// making a task waits for Foundation's queue, which a hang may block for good.
    init(_ count: Int) {
        self.count = count
    }

    /// Resumes the `count` requests, each `request` on `session`.
    func start(on session: URLSession, _ request: URLRequest) {
        for _ in 0..<count {
            let start = ContinuousClock.now
            session.dataTask(with: request) { [outcomes, done] data, response, error in
                let outcome = Outcome(data, response, error, seconds: (ContinuousClock.now - start).seconds)
                outcomes.update { $0.append(outcome) }
                done.add()
            }.resume()
        }
    }

    /// What the requests that ended came back with, in the order they ended.
    var ended: [Outcome] { outcomes.current }

    /// Waits, on a thread of its own, until every request ended (true) or `seconds` passed (false).
    func allEnded(upTo seconds: TimeInterval = .infinity) async -> Bool {
        await onOwnThread { [done, count] in done.wait(for: count, upTo: seconds) }
    }
}

/// One request, resumed with a completion handler, and when it ended.
final class Timed: Sendable {
    let started = ContinuousClock.now
    private let ended = Shared<(ContinuousClock.Instant, Outcome)?>(nil)
    private let done = Tally()

    init(_ request: URLRequest, on session: URLSession) {
        let start = started
        session.dataTask(with: request) { [ended, done] data, response, error in
            let now = ContinuousClock.now
            let outcome = Outcome(data, response, error, seconds: (now - start).seconds)
            ended.update { $0 = (now, outcome) }
            done.add()
        }.resume()
    }

    /// When it ended and what it came back with; `nil` while it has not.
    var end: (at: ContinuousClock.Instant, outcome: Outcome)? { ended.current }

    /// Waits, on a thread of its own, until it ended (true) or `seconds` passed (false).
    func ended(upTo seconds: TimeInterval = .infinity) async -> Bool {
        await onOwnThread { [done] in done.wait(for: 1, upTo: seconds) }
    }
}

extension Duration {
    /// This duration in seconds.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }

    /// This duration in milliseconds, for messages.
    var milliseconds: String { String(format: "%.1f ms", seconds * 1_000) }
}

/// How many threads this process has now (the `Threads:` line of `/proc/self/status`); `nil`
/// where there is no `/proc` (Apple platforms).
func processThreadCount() -> Int? {
    guard let data = FileManager.default.contents(atPath: "/proc/self/status") else { return nil }
    let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("Threads:") }
    return line.flatMap { Int($0.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces)) }
}

/// What `session` answers for `request`, waited for on this thread: what a synchronous handler
/// that asks another service does.
func outcomeWaitingOnThisThread(_ session: URLSession, _ request: URLRequest) -> Outcome {
    let start = ContinuousClock.now
    let done = DispatchSemaphore(value: 0)
    let outcome = Shared<Outcome?>(nil)
    session.dataTask(with: request) { data, response, error in
        outcome.update { $0 = Outcome(data, response, error, seconds: (ContinuousClock.now - start).seconds) }
        done.signal()
    }.resume()
    done.wait()
    return outcome.current ?? Outcome(nil, nil, nil, seconds: 0)
}

/// The largest of the thread counts noted so far.
final class PeakThreads: Sendable {
    private let peak = Shared<Int?>(nil)

    /// Notes the process's thread count now.
    func note() {
        guard let count = processThreadCount() else { return }
        peak.update { $0 = max($0 ?? 0, count) }
    }

    var current: Int? { peak.current }
}
