import Foundation

/// What stops when the test that owns a registry ends (`package`: a server serving the registry).
package protocol StopsWithTest: AnyObject, Sendable {
    /// Stops; called once the test's failures were reported. Safe to call more than once.
    func stop()
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

    /// Stops what ``stopWithTest(_:)`` was given, and forgets it: the test that owns this registry ends.
    package func stopWhatStopsWithTest() {
        let list = core.stopsWithTest.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for stopping in list { stopping.value?.stop() }
    }
}
