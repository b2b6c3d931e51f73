import Foundation
import XCTest

@testable import MockNetworkServer

/// The waits on a socket (`nextWebSocket`, `nextWebSocketMessage`, `receive`, all through
/// `AsyncQueue`) do not count time in which Swift's concurrency pool ran nothing, as
/// ``PoolHeldWaitTests`` shows for requests: the client's task could not run then either.
final class SocketWaitPoolHeldTests: XCTestCase {
    func testASocketWaitDoesNotCountTimeThePoolIsHeld() async throws {
        let queue = AsyncQueue<Int>()
        let pool = PoolHolder(for: 1.5)
        let send = Task { queue.append(7) }
        let probe = pool.probe()

        let value = try await queue.next(timeout: 0.3) { WebSocketError.timedOut("no value within 0.3 s") }
        XCTAssertEqual(value, 7)
        await send.value
        try await pool.check(probe)
    }

    /// A value that never comes still ends the wait at its time.
    func testAWaitForNothingEndsAtItsTime() async throws {
        let queue = AsyncQueue<Int>()
        let started = ContinuousClock.now
        do {
            _ = try await queue.next(timeout: 0.2) { WebSocketError.timedOut("no value within 0.2 s") }
            XCTFail("a value came")
        } catch let error as WebSocketError {
            XCTAssertEqual(error, .timedOut("no value within 0.2 s"))
        }
        // Generous: the timeout, the pool's turn and a grace, on a busy machine.
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
    }
}
