import Foundation

/// Whether a test used the process-wide `MockURLProtocol.registry`, and whether another test used it
/// at the same time. The `.mockNetwork` trait sets one for each test, as a task-local value that the
/// test's handlers see too.
package final class ProcessWideUse: Sendable {
    @TaskLocal package static var current: ProcessWideUse?

    /// The uses of tests still running that read it.
    private static let running = Locked<[ObjectIdentifier: ProcessWideUse]>([:])

    private struct State {
        var used = false
        var sharedWithAnotherTest = false
    }

    private let state = Locked(State())

    package init() {}

    /// Whether the test read `MockURLProtocol.registry`.
    package var used: Bool { state.withLock { $0.used } }

    /// Whether another running test had read it too while this one ran.
    package var sharedWithAnotherTest: Bool { state.withLock { $0.sharedWithAnotherTest } }

    func note() {
        let first = state.withLock { state in
            defer { state.used = true }
            return !state.used
        }
        guard first else { return }
        let others = Self.running.withLock { running in
            defer { running[ObjectIdentifier(self)] = self }
            return Array(running.values)
        }
        // Each of them now shares it with this one, and this one with them.
        for use in others + (others.isEmpty ? [] : [self]) {
            use.state.withLock { $0.sharedWithAnotherTest = true }
        }
    }

    /// The test has ended: its use no longer overlaps later tests'.
    package func end() {
        _ = Self.running.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) }
    }
}
