import Dispatch
import Foundation
import MockNetwork
import XCTest

@testable import MockNetworkTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The end of a test cancels the registry's tasks while they begin and end, without asking the
/// session for its task list on Linux: swift-corelibs-foundation's `getAllTasks` reads that list
/// on the delegate queue while the session's own queue changes it, and crashed the test process
/// (3 of 3 runs of 300 rounds, asked 10 times a round).
final class TestEndCancelTests: XCTestCase {
    func testEndingWhileRequestsBeginAndEndNeitherCrashesNorLeavesOneHanging() throws {
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 120, "300 test ends beside requests beginning and ending")
        defer { finished.update { $0 = true } }

        for _ in 0..<300 {
            let mocks = MockRegistry()
            mocks.register(.url("https://api.example.com/item", query: .ignored)) { _ in .text("ok") }
            let done = DispatchGroup()
            for index in 0..<30 {
                done.enter()
                let url = try XCTUnwrap(URL(string: "https://api.example.com/item?i=\(index)"))
                mocks.session.dataTask(with: url) { _, _, _ in done.leave() }.resume()
                if index % 3 == 0 { Lifecycle.cancelAndReset(mocks) }
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "a request was left hanging")
            _ = mocks.takeFailures()
        }
    }

    #if canImport(FoundationNetworking)
        /// On Linux a task's protocol is made in `resume()` and begins later, on Foundation's queue: a
        /// test that ends in between has the task cancelled (it got the cancel of the session's task
        /// list before). Tasks resumed in a row and the end at once: some have not begun.
        func testTheEndCancelsTasksResumedAndNotBegun() throws {
            var cancelled = 0
            for _ in 0..<20 {
                let mocks = MockRegistry()
                mocks.register(.url("https://api.example.com/item", query: .ignored)) { _ in .text("ok") }
                let done = DispatchGroup()
                // Foundation's own cancels: the task's `cancel()`, not MockNetwork's end of a request
                // in flight (also `.cancelled`, with MockNetwork's words).
                let cancels = Shared(0)
                for index in 0..<50 {
                    done.enter()
                    let url = try XCTUnwrap(URL(string: "https://api.example.com/item?i=\(index)"))
                    mocks.session.dataTask(with: url) { _, _, error in
                        if let error = error as? URLError, error.code == .cancelled,
                            !error.localizedDescription.contains("MockNetwork")
                        {
                            cancels.update { $0 += 1 }
                        }
                        done.leave()
                    }.resume()
                }
                Lifecycle.cancelAndReset(mocks)
                XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "a request was left hanging")
                cancelled += cancels.current
                _ = mocks.takeFailures()
            }
            print("cancelled before they began: \(cancelled) of 1,000")
            XCTAssertGreaterThan(cancelled, 0, "no task resumed and not begun was cancelled at the end")
        }
    #endif
}
