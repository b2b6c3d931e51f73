import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
    /// A test that lets an unmatched request's error go (`try await session.data(…)`) fails once,
    /// with MockNetwork's report, not also with XCTest's "threw error" dump of the same words.
    ///
    /// Drives ``ThrowingClientCase`` as XCTest runs a test, with a test run that keeps the failures
    /// instead of printing them. Made as XCTest's generated list makes a test, so this is Linux's;
    /// Apple's XCTest makes test cases from selectors (there, `record(_:)` holds the thrown issue back).
    final class ThrownUnmatchedErrorTests: XCTestCase {
        func testAThrownUnmatchedRequestErrorIsOneFailureTheReport() throws {
            let (failures, round) = run("requestUnmatched", "a test that throws an unmatched request's error")
            check(failures.count == 1, "one failure, not \(failures.count): \(failures)")
            check(failures.first?.hasPrefix(Self.report) == true, "the report, not XCTest's dump: \(failures)")
            check(round.thrown?.code == .resourceUnavailable, "the test still threw the client's error")
        }

        /// A `tearDown()` that skips `super`'s still gets the report (the end of the test sends what
        /// was not reported), and XCTest's failure for the thrown error stays held back.
        func testATearDownWithoutSuperStillGetsTheReport() throws {
            let (failures, _) = run("requestUnmatched", "a test that skips super.tearDown()", tearDown: .skipSuper)
            check(failures.count == 1, "one failure, not \(failures.count): \(failures)")
            check(failures.first?.hasPrefix(Self.report) == true, "the report: \(failures)")
        }

        /// A test that takes its failures (`takeFailures()`, it expected them) gets no report: XCTest's
        /// failure for the error it threw is recorded after all, as it would be without MockNetwork.
        func testWithNoReportTheThrownErrorStays() throws {
            let (failures, _) = run("requestUnmatched", "a test that takes its failures", tearDown: .takeFailures)
            check(failures.count == 1, "one failure, not \(failures.count): \(failures)")
            check(
                failures.first?.hasPrefix(#"threw error "Error Domain=NSURLErrorDomain Code=-1008"#) == true,
                "XCTest's own: \(failures)")
        }

        /// Any other error the test throws is XCTest's to report, as it is.
        func testAnotherThrownErrorStaysXCTests() throws {
            let (failures, _) = run("throwOwnError", "a test that throws an error of its own")
            check(failures == [#"threw error "OwnError()""#], "XCTest's own failure: \(failures)")
        }

        /// The start of MockNetwork's report of the unmatched request.
        static let report = "MockNetwork: no handler for GET https://api.example.com/none."

        /// Runs the method `name` of ``ThrowingClientCase`` as XCTest runs a test (a watchdog ends a
        /// hang); what it recorded, and the test case.
        private func run(
            _ name: String, _ what: String, tearDown: ThrowingClientCase.TearDownStep = .none
        ) -> (failures: [String], round: ThrowingClientCase) {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, what)
            defer { finished.update { $0 = true } }
            let round = ThrowingClientCase.made(name)
            round.tearDownStep = tearDown
            round.run()
            return ((round.testRun as? KeptFailures)?.failures ?? [], round)
        }

        /// Fails this test unless `condition` holds. Not `XCTAssert`: after `run()` of another test
        /// case, XCTest has no current test case, and an assertion's failure would go nowhere.
        private func check(_ condition: Bool, _ message: @autoclosure () -> String, line: Int = #line) {
            guard !condition else { return }
            recordFailure(withDescription: message(), inFile: #filePath, atLine: line, expected: true)
        }
    }

    /// A test run that keeps the failures recorded in it, and tells no observer (nothing is printed).
    final class KeptFailures: XCTestCaseRun {
        private(set) var failures: [String] = []

        override func start() {}
        override func stop() {}

        override func recordFailure(
            withDescription description: String, inFile filePath: String?, atLine lineNumber: Int, expected: Bool
        ) {
            failures.append(description)
        }
    }

    /// Tests in an app's shape that throw; driven by ``ThrownUnmatchedErrorTests`` (no method of its
    /// own starts with "test", so XCTest does not run it by itself).
    final class ThrowingClientCase: MockNetworkTestCase {
        struct OwnError: Error {}

        private(set) var thrown: URLError?
        /// What the test's `tearDown()` does besides calling `super`'s.
        enum TearDownStep { case none, skipSuper, takeFailures }
        var tearDownStep = TearDownStep.none

        override var testRunClass: AnyClass? { KeptFailures.self }

        override func tearDown() {
            switch tearDownStep {
            case .none: super.tearDown()
            case .skipSuper: break  // a mistake a suite can make
            case .takeFailures:
                _ = mocks.takeFailures()
                super.tearDown()
            }
        }

        /// A test case that runs the method `name` names, made as XCTest's generated test list makes one.
        static func made(_ name: String) -> ThrowingClientCase {
            ThrowingClientCase(name: name) { testCase in
                guard let test = testCase as? ThrowingClientCase else { return }
                if name == "requestUnmatched" {
                    try asyncTest(ThrowingClientCase.requestUnmatched)(test)()
                } else {
                    try test.throwOwnError()
                }
            }
        }

        func requestUnmatched() async throws {
            mocks.attachesTrafficOnFailure = false
            do {
                _ = try await session.data(from: try url("https://api.example.com/none"))
            } catch let error as URLError {
                thrown = error
                throw error
            }
        }

        func throwOwnError() throws {
            throw OwnError()
        }
    }
#endif
