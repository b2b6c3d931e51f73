import Foundation

/// What stops when the test that owns a registry ends (`package`: a server serving the registry).
package protocol StopsWithTest: AnyObject, Sendable {
    /// Stops; called once the test's failures were reported. Safe to call more than once.
    func stop()
    /// Failures for what it still has open at the end of the test (a server's WebSocket), after
    /// waiting, bounded, for what is ending on its own; blocks the calling thread meanwhile (an end
    /// of a test off the concurrency pool: XCTest's `tearDown`).
    func failuresAtEndOfTest() -> [MockFailure]
    /// As ``failuresAtEndOfTest()``, holding no thread while it waits.
    func awaitFailuresAtEndOfTest() async -> [MockFailure]
}

extension StopsWithTest {
    /// Nothing to report.
    package func failuresAtEndOfTest() -> [MockFailure] { [] }
    /// Nothing to report.
    package func awaitFailuresAtEndOfTest() async -> [MockFailure] { [] }
}

extension MockRegistry {
    /// A reference to something that stops with the test, which does not keep it alive.
    struct WeakStopping: Sendable {
        weak var value: (any StopsWithTest)?
    }

    /// Stops `stopping` when the test that owns this registry ends: the end of `MockNetworkTestCase`'s
    /// `tearDown`, or of the `.mockNetwork` trait's scope. Nothing stops it for a registry no test owns.
    package func stopWithTest(_ stopping: any StopsWithTest) {
        core.stopsWithTest.withLock { list in
            list.removeAll { $0.value == nil }
            list.append(WeakStopping(value: stopping))
        }
    }

    /// What ``stopWithTest(_:)`` was given and is still alive.
    private var stoppingWithTest: [any StopsWithTest] {
        core.stopsWithTest.withLock { list in list.compactMap(\.value) }
    }

    /// The failures of what stops with the test, for the end of the test (blocking).
    func stoppingFailures() -> [MockFailure] {
        stoppingWithTest.flatMap { $0.failuresAtEndOfTest() }
    }

    /// As ``stoppingFailures()``, holding no thread.
    func awaitStoppingFailures() async -> [MockFailure] {
        var failures: [MockFailure] = []
        for stopping in stoppingWithTest { failures += await stopping.awaitFailuresAtEndOfTest() }
        return failures
    }

    /// Stops what ``stopWithTest(_:)`` was given, and forgets it: the test that owns this registry ends.
    package func stopWhatStopsWithTest() {
        let list = core.stopsWithTest.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for stopping in list { stopping.value?.stop() }
    }
}
