import Dispatch
import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A wait on the test's own work (`arrived(timeout:)`, `nextRequest(matching:timeout:)`) does not
/// count time in which Swift's concurrency pool ran nothing: other tests held all its threads
/// (synchronous tests that block, as tutorials write them), so the test's task could not make its
/// request either. Before, such a wait ran out at its time, and the verdict depended on other tests
/// (seen: `aHeldRequestIsReleasedByTheTest` failed beside `StarvedPoolTests` on a busy machine).
///
/// XCTest runs one test at a time, so holding the pool here holds up no other test.
final class PoolHeldWaitTests: XCTestCase {
    /// Holds every thread of the pool for 1.5 s, with the client's task queued behind: a wait of
    /// 0.3 s gets the request.
    func testArrivedDoesNotCountTimeThePoolIsHeld() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/feed")
        let session = mocks.session
        let url = try XCTUnwrap(URL(string: "https://api.example.com/feed"))
        let pool = PoolHolder(for: 1.5)
        let load = Task { try await session.data(from: url) }
        let probe = pool.probe()

        let arrived = try await gate.arrived(timeout: 0.3)
        XCTAssertEqual(arrived.url.path, "/feed")
        gate.release(with: .text("ok"))
        let (data, _) = try await load.value
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "ok")
        try await pool.check(probe)
    }

    func testNextRequestDoesNotCountTimeThePoolIsHeld() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/track") { _ in .status(204) }
        let session = mocks.session
        let url = try XCTUnwrap(URL(string: "https://api.example.com/track"))
        let pool = PoolHolder(for: 1.5)
        let load = Task { try await session.data(from: url) }
        let probe = pool.probe()

        let sent = try await mocks.nextRequest(matching: .url("https://api.example.com/track"), timeout: 0.3)
        XCTAssertEqual(sent.url.path, "/track")
        _ = try await load.value
        try await pool.check(probe)
    }

    /// A request that never comes still ends the wait at its time, and the message says nothing
    /// of time not counted when none was.
    func testAWaitForNothingEndsAtItsTime() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold("https://api.example.com/never")
        let started = ContinuousClock.now
        do {
            try await gate.arrived(timeout: 0.2)
            XCTFail("a request arrived")
        } catch let error as MockNetworkError {
            XCTAssertEqual(
                error.description,
                "MockNetwork: no request reached hold(https://api.example.com/never) within 0.2 s. Check that "
                    + "the code under test makes it, to that URL and with that method, or give arrived(timeout:) "
                    + "longer.")
        }
        // Generous: the timeout, the pool's turn and a grace, on a busy machine.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }
}

/// A wait still ends when the pool never frees (code under test that blocks every thread for good):
/// time stops counting for at most the clock's cap, then the wait ends without a turn of the pool.
final class PoolNeverFreesTests: XCTestCase {
    /// Synchronous, on the main thread: the pool is held for 3 s, a clock with a cap of 0.5 s fires a
    /// wait of 0.2 s within 2 s (before, its last turn waited for the pool: 3 s).
    func testAWaitEndsAtItsTimeAndTheCapWhileThePoolIsHeld() throws {
        let pool = PoolHolder(for: 3)
        defer { pool.waitUntilLetGo() }
        let clock = PoolClock(cap: 0.5)
        let fired = DispatchSemaphore(value: 0)
        let started = DispatchTime.now()
        clock.expire(start: started, timeout: 0.2) { fired.signal() }
        XCTAssertEqual(fired.wait(timeout: started + 2), .success, "the wait did not end while the pool was held")
        XCTAssertGreaterThanOrEqual(clock.notCounted, 0.4, "the time the pool was held, up to the cap, did not count")
    }
}

/// Holds every thread of Swift's concurrency pool (one blocked task a core, as synchronous tests that
/// wait on a semaphore do) for `seconds`, from when the test's task lets go of its thread.
final class PoolHolder: Sendable {
    private let release = DispatchSemaphore(value: 0)
    private let threads = ProcessInfo.processInfo.activeProcessorCount
    /// When the threads were let go, in uptime nanoseconds.
    private let released = Shared<UInt64>(0)

    /// The blocked tasks run at the test's priority: the pool's threads serve one priority each.
    init(for seconds: TimeInterval) {
        let priority = Task.currentPriority
        for _ in 0..<threads {
            Task.detached(priority: priority) { [release] in release.wait() }
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            released.update { $0 = DispatchTime.now().uptimeNanoseconds }
            for _ in 0..<threads { release.signal() }
        }
    }

    /// Returns once the threads were let go (a test that held them ends after).
    func waitUntilLetGo() {
        while released.current == 0 { Thread.sleep(forTimeInterval: 0.01) }
    }

    /// A job queued behind the blocked ones: when it ran, in uptime nanoseconds.
    func probe() -> Task<UInt64, Never> {
        Task { DispatchTime.now().uptimeNanoseconds }
    }

    /// That the pool was held: `probe` ran only once the threads were let go (else the test tested
    /// nothing: the pool is wider than the cores).
    func check(_ probe: Task<UInt64, Never>) async throws {
        let ran = await probe.value
        let letGo = released.current
        XCTAssertGreaterThan(letGo, 0, "the request came before the pool's threads were let go")
        XCTAssertGreaterThanOrEqual(ran, letGo, "a job ran while the pool was held: it is wider than \(threads)")
    }
}
