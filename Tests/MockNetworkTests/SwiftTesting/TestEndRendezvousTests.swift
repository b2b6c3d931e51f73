import Foundation
import MockNetworkTesting
import Testing

/// The end of a test under the `.mockNetwork` trait lets the concurrency pool's earlier jobs run by
/// meeting one job on each pool thread. Tests that end at the same moment must not meet at once:
/// each meeting would hold a thread the other needs, and every task in the process would stall
/// until their bound (half a second), as a server-sent stream to a client did in a parallel run.
@Suite
struct TestEndRendezvousTests {
    @Test func testsEndingAtOnceEachMeetEveryPoolThread() async throws {
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 60, "tests ending at once")
        defer { finished.update { $0 = true } }
        for _ in 0..<20 {
            let met = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<4 {
                    group.addTask { await Lifecycle.letEarlierJobsRun() }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(met == [true, true, true, true], "a meeting waited its bound instead of completing")
        }
    }
}
