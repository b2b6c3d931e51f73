import Foundation

/// Counts arrivals up to `count`; waiters resume once all have come (awaited, holding no thread).
final class Countdown: Sendable {
    private struct State {
        var left: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Shared<State>

    init(_ count: Int) { state = Shared(State(left: count)) }

    var isDone: Bool { state.current.left <= 0 }

    func arrive() {
        let waiters = state.update { state -> [CheckedContinuation<Void, Never>] in
            state.left -= 1
            guard state.left == 0 else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.update { state -> Bool in
                if state.left <= 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
