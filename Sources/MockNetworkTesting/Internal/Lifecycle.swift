import Foundation
import MockNetwork

/// The end of a test, shared by ``MockNetworkTestCase``, `verify()` and the `.mockNetwork` trait.
enum Lifecycle {
    /// Reports what `registry` noticed (unmatched requests, invalid registrations and responses,
    /// unmet expected call counts, requests still in flight) through `fail`, then forgets it.
    static func report(_ registry: MockRegistry, through fail: (MockFailure) -> Void) {
        for failure in registry.takeFailures() + registry.endOfTestFailures() { fail(failure) }
    }

    /// Reports, calls `beforeReset` (the test's traffic is still there to attach), then cancels what
    /// is still in flight and empties the registry.
    static func end(
        _ registry: MockRegistry, through fail: (MockFailure) -> Void, beforeReset: () -> Void = {}
    ) {
        report(registry, through: fail)
        beforeReset()
        registry.session.getAllTasks { tasks in
            for task in tasks { task.cancel() }
        }
        registry.reset()
    }

    /// Reports what the process-wide registry (`MockURLProtocol.registry`, the tutorials' wiring)
    /// noticed during the test that ends; with `reset`, also empties it for the next test.
    static func endProcessWide(reset: Bool, through fail: (MockFailure) -> Void) {
        let registry = MockURLProtocol.registry
        if reset {
            end(registry, through: fail)
        } else {
            for failure in registry.takeFailures() { fail(failure) }
        }
    }
}
