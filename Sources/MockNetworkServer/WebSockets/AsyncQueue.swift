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
    }

    private struct State {
        var values: [Value] = []
        var head = 0
        var finished = false
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state = Locked(State())
    /// The most values kept waiting: past it, the oldest is dropped (`nil`: no limit).
    private let limit: Int?

    /// An empty queue that keeps at most `limit` values waiting.
    init(limit: Int? = nil) {
        self.limit = limit
    }

    /// Adds `value`: the oldest waiter takes it, else it waits for a take. Nothing after `finish`.
    func append(_ value: Value) {
        let waiter = state.withLock { state -> Waiter? in
            guard !state.finished else { return nil }
            guard !state.waiters.isEmpty else {
                state.values.append(value)
                if let limit, state.values.count - state.head > limit { take(&state) }
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.continuation.resume(returning: value)
    }

    /// No value comes any more: waiters get `nil`, and so do takes once the values left are taken.
    func finish() {
        let waiters = state.withLock { state -> [Waiter] in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: nil) }
    }

    /// Takes the first waiting value `matches` accepts, if any, wherever it waits.
    func remove(where matches: (Value) -> Bool) -> Value? {
        state.withLock { state -> Value? in
            guard let index = state.values[state.head...].firstIndex(where: matches) else { return nil }
            return state.values.remove(at: index)
        }
    }

    /// The values not taken yet.
    var waiting: [Value] {
        state.withLock { Array($0.values[$0.head...]) }
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
                    if state.head < state.values.count {
                        defer { take(&state) }
                        return .success(state.values[state.head])
                    }
                    if state.finished { return .success(nil) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return nil
                }
                if let immediate {
                    continuation.resume(with: immediate)
                } else if let timeout {
                    DispatchQueue.global().asyncAfter(deadline: .now() + max(timeout, 0)) { [weak self] in
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
        waiter?.continuation.resume(throwing: error)
    }

    private func take(_ state: inout State) {
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
