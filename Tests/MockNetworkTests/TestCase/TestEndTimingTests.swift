import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(FoundationNetworking)
    /// The end of an XCTest does not wait on a client's delegate queue: app code often makes its
    /// session with `delegateQueue: .main`, and XCTest ends a test (`tearDown()`) on the main thread,
    /// so whatever the end asks of that queue and waits for cannot run until the wait gives up.
    ///
    /// The test drives 20 tests of ``MainQueueClientCase`` as XCTest runs one: `invokeTest()` on the
    /// main thread (set-up, the `async` test awaited while the main run loop turns, tear-down), each
    /// on an instance of its own (swift-corelibs-xctest runs an instance once: a second `invokeTest()`
    /// traps finalizing its tear-down blocks). Made as XCTest's generated list makes them, so this is
    /// Linux's; Apple's XCTest makes test cases from selectors.
    final class TestEndTimingTests: XCTestCase {
        func testEndDoesNotWaitOnTheClientsDelegateQueue() throws {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "20 test ends beside a client on the main queue")
            defer { finished.update { $0 = true } }
            XCTAssertTrue(Thread.isMainThread, "XCTest runs a synchronous test on the main thread")

            var tearDowns: [Duration] = []
            for _ in 0..<20 {
                let round = MainQueueClientCase.made()
                round.invokeTest()
                XCTAssertEqual(round.failures, [], "what MockNetworkTestCase reported at the end")
                XCTAssertTrue(round.answered, "the test's request was answered")
                tearDowns.append(try XCTUnwrap(round.tearDownTime, "tearDown() did not run"))
            }

            let sorted = tearDowns.sorted()
            let median = sorted[sorted.count / 2]
            let longest = sorted[sorted.count - 1]
            XCTAssertTrue(
                median < .milliseconds(5) && longest < .milliseconds(50),
                """
                MockNetworkTestCase.tearDown() took \(median.milliseconds) (median of 20), at most \
                \(longest.milliseconds), after a test whose client's delegate queue is the main queue: \
                \(tearDowns.map(\.milliseconds).joined(separator: ", "))
                """)
        }
    }

    /// A test in an app's shape: its client, made with `delegateQueue: .main`, is kept in a property
    /// and makes one request, awaited. Driven by ``TestEndTimingTests``; no method of its own is a
    /// test (none starts with "test"), so XCTest does not run it by itself.
    final class MainQueueClientCase: MockNetworkTestCase {
        /// The client the test made, kept as an app's model keeps it.
        private var client: URLSession?
        /// How long `MockNetworkTestCase.tearDown()` took.
        private(set) var tearDownTime: Duration?
        private(set) var answered = false
        /// What `MockNetworkTestCase` reported: an instance that XCTest did not run has no test run
        /// to record failures in.
        private(set) var failures: [String] = []

        /// A test case that runs ``requestOnce()``, made as XCTest's generated test list makes one.
        static func made() -> MainQueueClientCase {
            MainQueueClientCase(name: "requestOnce") { testCase in
                guard let test = testCase as? MainQueueClientCase else { return }
                try asyncTest(MainQueueClientCase.requestOnce)(test)()
            }
        }

        func requestOnce() async throws {
            register("https://api.example.com/ping") { _ in .text("pong") }
            let client = URLSession(configuration: mocks.configuration, delegate: nil, delegateQueue: .main)
            self.client = client
            let (data, _) = try await client.data(from: try url("https://api.example.com/ping"))
            answered = String(decoding: data, as: UTF8.self) == "pong"
        }

        override func tearDown() {
            let start = ContinuousClock.now
            super.tearDown()
            tearDownTime = ContinuousClock.now - start
            client?.finishTasksAndInvalidate()
            client = nil
        }

        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
        ) {
            failures.append(description)
        }
    }
#endif
