#if canImport(XCTest)
    import Foundation
    import MockNetwork
    import XCTest

    #if Archives
        import MockNetworkGraphQL
    #endif

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// An `XCTestCase` that gives every test a fresh `MockRegistry` and its `session`,
    /// and reports the registry's failures (such as unmatched requests) as failures of that test.
    ///
    /// ```swift
    /// final class UserTests: MockNetworkTestCase {
    ///     func testLoadsUser() async throws {
    ///         register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
    ///         let user = try await UserClient(session: session).user()
    ///         XCTAssertEqual(user.name, "Ada")
    ///     }
    /// }
    /// ```
    /// Overrides of `setUp()` and `tearDown()` must call `super`. With a base class of your own,
    /// keep a `MockRegistry()` made in `setUp()` and call its `verify()` in `tearDown()`.
    open class MockNetworkTestCase: XCTestCase {
        private var current: MockRegistry?
        /// XCTest's failure for a thrown error that this test's report covers, held back until the
        /// report comes (see `recordFailure`), and whether it came.
        private var withheld: (() -> Void)?
        private var reported = false

        /// This test's registry, made fresh for every test, with the class's defaults registered.
        public var mocks: MockRegistry {
            if let current { return current }
            let registry = MockRegistry()
            #if Archives
                registry.readsGraphQL()
            #endif
            current = registry
            do {
                try registry.registerDefaults { try registerDefaults(in: $0) }
            } catch {
                Reporter.fail(
                    "MockNetwork: registerDefaults(in:) of \(type(of: self)) threw \(error). The test runs with the "
                        + "defaults registered before that; fix what threw there.",
                    at: nil, in: self,
                    fallback: MockNetwork.SourceLocation(fileID: #fileID, filePath: #filePath, line: #line))
            }
            return registry
        }

        /// Registers the handlers every test of this class starts with (none unless overridden):
        /// the answers most tests need, in a base class of your suite. A test's own registration
        /// wins for the requests it matches, however either matches; see `MockRegistry.registerDefaults(_:)`.
        ///
        /// ```swift
        /// class APITestCase: MockNetworkTestCase {
        ///     override func registerDefaults(in mocks: MockRegistry) throws {
        ///         mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        ///     }
        /// }
        /// ```
        /// It runs once per test, when the test's registry is made (at `setUp()` at the latest).
        open func registerDefaults(in mocks: MockRegistry) throws {}

        /// This test's session: its requests are answered by ``mocks``.
        public var session: URLSession { mocks.session }

        /// Whether the test fails for every handler it registered that no request called (off by
        /// default). Override it in a test class or a base class of your suite; one test can set
        /// `mocks.requiresEveryHandlerCalled` instead.
        open var requiresEveryHandlerCalled: Bool { false }

        /// Makes this test's registry, unless an earlier set-up step already used it: XCTest calls
        /// `setUp() async throws` and `setUpWithError()` before `setUp()`.
        override open func setUp() {
            super.setUp()
            mocks.requiresEveryHandlerCalled = requiresEveryHandlerCalled
        }

        /// Reports what this test's registry, and the process-wide `MockURLProtocol.registry`,
        /// noticed as failures of this test, at the registration they concern when there is one;
        /// when the test failed, attaches its traffic (`MockRegistry.attachesTrafficOnFailure`);
        /// stops what stops with the test (a server serving the registry); then empties the
        /// process-wide registry. This test's own is emptied once the test has run (`invokeTest()`),
        /// after what the test left running has had its say.
        override open func tearDown() {
            report(mocks.settledFailures())
            // A server serving the registry stops with the test's end, as the test's own code expects.
            mocks.stopWhatStopsWithTest()
            // XCTest runs one test at a time, so whatever the process-wide registry holds is this test's.
            Lifecycle.endProcessWide(reset: true, through: fail)
            super.tearDown()
        }

        /// Runs the test with a witness that every task it makes copies, then, while such a task is
        /// still running, waits (at most 0.5 s) for its request, and reports what it brought as failures
        /// of this test: a `Task` the test did not await belongs to it, not to the next test. Then the
        /// registry is emptied, and a request made after that fails at once (the next test cannot fail
        /// for it). A traffic file written for a test that passed after all (its failures were expected)
        /// is removed.
        override open func invokeTest() {
            let gone = Flag()
            let relay = Locked<MockRegistry?>(nil)
            // Made in the call: no reference of this function's keeps the witness alive after it.
            TaskWitness.$current.withValue(TaskWitness(gone: gone) { relay.withLock { $0 }?.noteChange() }) {
                super.invokeTest()
            }
            guard let registry = current else { return }
            relay.withLock { $0 = registry }
            if !gone.isSet {
                let made = registry.requestsMade
                registry.waitForChange(until: .now() + 0.5) { gone.isSet || registry.requestsMade > made }
            }
            // What such tasks brought since `tearDown` (a request made just before it, or during the wait).
            let late = registry.failuresSinceEnd()
            if !late.isEmpty { report(late) }
            if !reported { withheld?() }
            withheld = nil
            Lifecycle.cancelAndReset(registry)
            registry.testEnded(name)
            #if Archives && canImport(FoundationNetworking)
                if testRun?.totalFailureCount == 0 { TrafficAttachment.removeEarlierFile(of: self) }
            #endif
        }

        #if canImport(FoundationNetworking)
            /// Records a failure, except XCTest's own for an unmatched request's error that the test
            /// threw: the test's report (at `tearDown()`) says the same, with the nearest handler and
            /// the fix, so the test fails once. Every other failure is recorded as it is.
            override open func recordFailure(
                withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
            ) {
                // swift-corelibs-xctest records a thrown error as `threw error "…"` at `<EXPR>`, line 0.
                let thrown = !expected && filePath == "<EXPR>" && description.hasPrefix("threw error")
                if thrown, description.contains(MockFailure.reportedNote), current?.failures.isEmpty == false {
                    // Recorded at the end of `invokeTest()` if no report came (the test took its failures).
                    withheld = {
                        super.recordFailure(
                            withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
                    }
                    return
                }
                super.recordFailure(
                    withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            }
        #else
            /// Records an issue, except XCTest's own for an unmatched request's error that the test
            /// threw: the test's report (at `tearDown()`) says the same, with the nearest handler and
            /// the fix, so the test fails once. Every other issue is recorded as it is.
            override open func record(_ issue: XCTIssue) {
                if issue.type == .thrownError, let error = issue.associatedError, MockFailure.isReported(error),
                    current?.failures.isEmpty == false
                {
                    // Recorded at the end of `invokeTest()` if no report came (the test took its failures).
                    withheld = { super.record(issue) }
                    return
                }
                super.record(issue)
            }
        #endif

        /// Reports `failures` as this test's; when the test failed, attaches its traffic first.
        private func report(_ failures: [MockFailure]) {
            // A failed test's report gets its traffic (`attachesTrafficOnFailure`); a passing one's never.
            // On Linux the note naming the file goes into MockNetwork's first failure, or the log.
            var note: String?
            #if Archives
                if (testRun?.totalFailureCount ?? 0) > 0 || !failures.isEmpty {
                    note = TrafficAttachment.attach(mocks, to: self)
                } else {
                    #if canImport(FoundationNetworking)
                        TrafficAttachment.removeEarlierFile(of: self)
                    #endif
                }
            #endif
            for failure in Lifecycle.withNote(note, failures) { fail(failure) }
            if !failures.isEmpty { reported = true }
            if failures.isEmpty, let note { print(note) }
        }

        /// Fails this test with `failure`, at its registration when it has one, else at the first.
        private func fail(_ failure: MockFailure) {
            let fallback =
                mocks.firstRegistration ?? MockNetwork.SourceLocation(fileID: #fileID, filePath: #filePath, line: #line)
            Reporter.fail(failure.message, at: failure.location, in: self, fallback: fallback)
        }
    }
#endif
