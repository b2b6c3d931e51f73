import Dispatch
import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request a `MockNetworkTestCase` test left to a task it did not await belongs to that test: its
/// failure is the test's, reported after the task has had its say (at most 0.5 s after the test), never
/// the next test's. Each test here captures its own failures once it has run, and checks them.
final class LateRequestTestCaseTests: FailureCapturingTestCase {
    /// The first lines of the failures every test here must have (set by each test).
    private var expected: [String] = []

    override func invokeTest() {
        capturing = true
        super.invokeTest()
        capturing = false
        // Each failure's first line: the rest is the report's detail and the traffic file's note.
        XCTAssertEqual(captured.map { String($0.prefix { $0 != "\n" }) }, expected, "the failures of \(name)")
    }

    private static let address = "https://api.example.com/late"
    private static let unmatched = "MockNetwork: no handler for GET \(address)."

    /// A `Task` made at once and not awaited: its unmatched request fails this test every time (it
    /// was caught in 3, 7 and 10 of 10 runs, by when the task got to run).
    private func leaveAnImmediateTask() {
        let session = session
        let url = URL(string: Self.address)!
        Task { _ = try? await session.data(from: url) }
        expected = [Self.unmatched]
    }

    func testAnImmediateTask01() async { leaveAnImmediateTask() }
    func testAnImmediateTask02() async { leaveAnImmediateTask() }
    func testAnImmediateTask03() async { leaveAnImmediateTask() }
    func testAnImmediateTask04() async { leaveAnImmediateTask() }
    func testAnImmediateTask05() async { leaveAnImmediateTask() }
    func testAnImmediateTask06() async { leaveAnImmediateTask() }
    func testAnImmediateTask07() async { leaveAnImmediateTask() }
    func testAnImmediateTask08() async { leaveAnImmediateTask() }
    func testAnImmediateTask09() async { leaveAnImmediateTask() }
    func testAnImmediateTask10() async { leaveAnImmediateTask() }

    /// A task that sleeps 300 ms, then makes its request: seen, and this test's.
    func testATaskThatSleepsBeforeItsRequest() async {
        let session = session
        let url = URL(string: Self.address)!
        Task {
            try await Task.sleep(for: .milliseconds(300))
            _ = try? await session.data(from: url)
        }
        expected = [Self.unmatched]
    }

    /// The request a plain Dispatch timer makes 300 ms after its test returned, which no task-local
    /// value reaches: it fails at once with an error that names its test, and no later test fails for
    /// it (the next test, which touched nothing, failed with its URL).
    static let lateFromDispatch = Shared<String?>(nil)
    static let lateEnded = Tally()

    func testLate1ADispatchTimerFiresAfterTheTest() {
        let session = session
        let url = URL(string: Self.address)!
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            session.dataTask(with: url) { _, _, error in
                Self.lateFromDispatch.update { $0 = error?.localizedDescription }
                Self.lateEnded.add()
            }.resume()
        }
    }

    func testLate2TheNextTestIsNotFailedForIt() async {
        // Ordered after the test above (XCTest runs a class's tests by name).
        let ended = await onOwnThread { Self.lateEnded.wait(for: 1, upTo: 10) }
        XCTAssertTrue(ended, "the late request had not ended")
        XCTAssertEqual(
            Self.lateFromDispatch.current,
            "MockNetwork: GET \(Self.address) came after its test, "
                + "LateRequestTestCaseTests.testLate1ADispatchTimerFiresAfterTheTest, ended, and was not answered. "
                + "No test fails for it: await the work that makes it (or cancel it) before the test returns.")
    }
}
