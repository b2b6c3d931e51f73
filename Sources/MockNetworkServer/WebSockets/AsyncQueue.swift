import Dispatch
import Foundation
import MockNetwork

/// Values that arrive over time, taken in order by whoever awaits them: the messages a handler
/// reads, the sockets and messages a test awaits. A take waits, bounded by its timeout and by its
/// task's cancellation, and gets `nil` once the queue is finished and empty.
final class AsyncQueue<Value: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Value?, any Error>
        /// The clock of its timeout, stopped when the wait ends.
        var clock: PoolClock?

        func resume(with result: Result<Value?, any Error>) {
            clock?.stop()
            continuation.resume(with: result)
        }
    }

    private struct State {
        /// The values, the taken ones `nil` (so what they hold is freed at once) until compacted.
        var values: [Value?] = []
        var head = 0
        /// The bytes of the values waiting, as `weight` counts them.
        var bytes = 0
        var finished = false
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Locked(State())
    /// The most values kept waiting: past it, the oldest is dropped (`nil`: no limit).
    private let limit: Int?
    /// The most bytes kept waiting, as `weight` counts a value's: past it, the oldest are dropped,
    /// though never the latest.
    private let byteLimit: Int
    private let weight: (@Sendable (Value) -> Int)?

    /// An empty queue that keeps at most `limit` values waiting, and at most `byteLimit` bytes of them
    /// as `weight` counts them.
    init(limit: Int? = nil, byteLimit: Int = .max, weight: (@Sendable (Value) -> Int)? = nil) {
        self.limit = limit
        self.byteLimit = byteLimit
        self.weight = weight
    }

    /// Adds `value`: the oldest waiter takes it, else it waits for a take. Nothing after `finish`.
    func append(_ value: Value) {
        let waiter = state.withLock { state -> Waiter? in
            guard !state.finished else { return nil }
            guard !state.waiters.isEmpty else {
                state.values.append(value)
                state.bytes += weight?(value) ?? 0
                if let limit, state.values.count - state.head > limit { _ = take(&state) }
                while state.bytes > byteLimit, state.values.count - state.head > 1 { _ = take(&state) }
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(with: .success(value))
    }

    /// No value comes any more: waiters get `nil`, and so do takes once the values left are taken.
    func finish() {
        let waiters = state.withLock { state -> [Waiter] in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(with: .success(nil)) }
    }

    /// Takes the first waiting value `matches` accepts, if any, wherever it waits.
    func remove(where matches: (Value) -> Bool) -> Value? {
        state.withLock { state -> Value? in
            guard let index = state.values[state.head...].firstIndex(where: { $0.map(matches) ?? false }),
                let value = state.values.remove(at: index)
            else { return nil }
            state.bytes -= weight?(value) ?? 0
            return value
        }
    }

    /// Whether no value waits to be taken.
    var isEmpty: Bool { state.withLock { $0.head == $0.values.count } }

    /// The values not taken yet.
    var waiting: [Value] {
        state.withLock { $0.values[$0.head...].compactMap { $0 } }
    }

    /// The next value, at once when one waits; else the next to come, within `timeout` seconds
    /// (`nil` waits as long as it takes). `nil` when the queue is finished. Throws
    /// `timedOut(timeout)`'s error when the time passes, `CancellationError` when the task is cancelled.
    func next(timeout: TimeInterval?, timedOut: @escaping @Sendable () -> any Error) async throws -> Value? {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value?, any Error>) in
                let immediate = state.withLock { state -> Result<Value?, any Error>? in
                    if state.head < state.values.count { return .success(take(&state)) }
                    if state.finished { return .success(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                } else if let timeout, timeout.isFinite {
                    // Time in which the concurrency pool ran nothing (other tests held its threads, so
                    // the client's task could not run either) does not count.
                    let clock = PoolClock()
                    let waits = state.withLock { state in
                        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                        state.waiters[index].clock = clock
                        return true
                    }
                    guard waits else { return clock.stop() }
                    clock.expire(start: .now(), timeout: max(timeout, 0)) { [weak self] in
                        self?.abandon(id, with: timedOut())
                    }
                }
            }
        } onCancel: {
            abandon(id, with: CancellationError())
        }
    }

    /// Ends the wait `id` with `error`, when it still waits.
    private func abandon(_ id: Int, with error: any Error) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.resume(with: .failure(error))
    }

    /// Takes the first value waiting (there is one).
    private func take(_ state: inout State) -> Value? {
        let value = state.values[state.head]
        state.values[state.head] = nil
        if let value { state.bytes -= weight?(value) ?? 0 }
        defer { compact(&state) }
        return value
    }

    private func compact(_ state: inout State) {
        state.head += 1
        if state.head == state.values.count {
            state.values.removeAll(keepingCapacity: true)
            state.head = 0
        } else if state.head >= 1024, state.head * 2 >= state.values.count {
            state.values.removeFirst(state.head)
            state.head = 0
        }
    }
}
