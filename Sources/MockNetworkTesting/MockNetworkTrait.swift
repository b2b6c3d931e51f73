#if canImport(Testing)
    import Dispatch
    import Foundation
    import MockNetwork
    import Testing

    #if Archives
        import MockNetworkArchives
        import MockNetworkGraphQL
    #endif

    extension Trait where Self == MockNetworkTrait {
        /// Gives every test, and every case of a parameterized test, a fresh `MockRegistry`
        /// and session, read with `MockRegistry.current`; at the end of each, reports what the
        /// registry noticed as issues of that test. On a suite, it applies to every test inside.
        ///
        /// ```swift
        /// @Suite(.mockNetwork)
        /// struct FeedTests {
        ///     @Test func loadsFeed() async throws {
        ///         let mocks = MockRegistry.current
        ///         mocks.register("https://api.example.com/feed") { _ in .json(feedJSON) }
        ///         let feed = try await FeedClient(session: mocks.session).feed()
        ///         #expect(feed.items.count == 2)
        ///     }
        /// }
        /// ```
        public static var mockNetwork: Self { MockNetworkTrait() }

        /// `.mockNetwork`, with defaults every test's registry starts with, or failing the test for
        /// every handler no request called (nock's `done()`).
        ///
        /// ```swift
        /// @Suite(.mockNetwork { mocks in
        ///     mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        /// })
        /// struct FlagTests {
        ///     @Test func betaOn() async throws {
        ///         // Wins over the default for this test only.
        ///         MockRegistry.current.register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }
        ///     }
        /// }
        /// ```
        ///
        /// - Parameters:
        ///   - requiringEveryHandlerCalled: whether each test fails for every handler it registered
        ///     that no request called (defaults are exempt).
        ///   - defaults: registers the handlers every test, and every case of a parameterized test,
        ///     starts with; see `MockRegistry.registerDefaults(_:)`. A test's own registration wins for
        ///     the requests it matches. Where a suite's trait and a test's both give defaults, the
        ///     suite's are registered first, then the test's.
        public static func mockNetwork(
            requiringEveryHandlerCalled: Bool = false,
            defaults: (@Sendable (MockRegistry) throws -> Void)? = nil
        ) -> Self {
            MockNetworkTrait(requiresEveryHandlerCalled: requiringEveryHandlerCalled, defaults: defaults)
        }
    }

    /// The trait behind `.mockNetwork`: a registry per test, so tests run in parallel without
    /// seeing each other's handlers.
    public struct MockNetworkTrait: TestTrait, SuiteTrait, TestScoping {
        /// Applies to every test in a suite it is on.
        public var isRecursive: Bool { true }

        #if Archives
            /// The archive each test answers from (`MockNetworkTrait+Archives.swift`).
            var archive: Archive?
        #endif
        var requiresEveryHandlerCalled = false
        var defaults: (@Sendable (MockRegistry) throws -> Void)?
        /// Which `.mockNetwork` this is: the same for the copies a suite hands its tests.
        private let identity = UUID()

        /// Every test, and every case of a parameterized test; with an archive, also the suite the
        /// trait is on, whose scope tells its tests to use an archive each.
        public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
            #if Archives
                if test.isSuite { return archive == nil ? nil : self }
            #else
                if test.isSuite { return nil }
            #endif
            return testCase == nil ? nil : self
        }

        /// Runs `function` with a fresh registry as `MockRegistry.current`, then reports the
        /// registry's failures as issues of `test`.
        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            #if Archives
                if test.isSuite, let archive {
                    // A nested suite that inherits the trait keeps the outer suite's place.
                    var suites = Self.archiveSuites
                    if suites[archive.name] == nil { suites[archive.name] = test.id.nameComponents }
                    try await Self.$archiveSuites.withValue(suites) { try await function() }
                    return
                }
            #endif
            // Where a suite's trait and a nested one's both reach a test, the innermost (the last)
            // gives it its registry; the others only run it.
            if let innermost = test.traits.last(where: { $0 is MockNetworkTrait }) as? MockNetworkTrait,
                innermost.identity != identity
            {
                try await function()
                return
            }
            let registry = MockRegistry()
            #if Archives
                registry.readsGraphQL()
            #endif
            registry.requiresEveryHandlerCalled = requiresEveryHandlerCalled
            let processWide = ProcessWideUse()
            defer { processWide.end() }
            let fallback = MockNetwork.SourceLocation(test.sourceLocation)
            let failed = FailureFlag()
            // Whether the first failure named the traffic file (Linux), so that nothing else needs to.
            let noted = Flag()
            // All the test and MockNetwork record is watched: a failing issue (not a known one)
            // attaches the test's traffic before the registry is emptied.
            try await Self.watchingIssues(failed, noted, registry, for: test, testCase: testCase) {
                // In the registry's scope: defaults that read `MockRegistry.current` get this one.
                MockRegistry.$scoped.withValue(registry) {
                    registerDefaults(of: test, in: registry, fallback: fallback)
                }
                do {
                    #if Archives
                        try archive?.attach(to: registry, test: test, testCase: testCase, location: fallback)
                    #endif
                    try await ProcessWideUse.$current.withValue(processWide) {
                        try await MockRegistry.$scoped.withValue(registry) {
                            // Made in the scope, so handlers see the test and its registry.
                            let runner = TestTaskRunner(share: registry.handlerShare)
                            registry.handlerRunner = runner
                            defer { runner.finish() }
                            // A `Task` the test made and did not await may not have made its request yet.
                            try await Lifecycle.awaitingTasksLeftRunning(in: registry, runner: runner) {
                                try await function()
                            }
                        }
                    }
                } catch {
                    failed.set()
                    await Self.end(
                        registry, processWide, fallback: fallback, test: test, testCase: testCase, failed: failed,
                        noted: noted)
                    throw error
                }
                await Self.end(
                    registry, processWide, fallback: fallback, test: test, testCase: testCase, failed: failed,
                    noted: noted)
            }
        }

        /// Runs `body`, setting `failed` when it records an issue that fails the test (a known issue
        /// or a warning does not, from Swift 6.3). Issue handlers came with Swift 6.2; before, no
        /// issue is seen, and only MockNetwork's own failures and thrown errors set it.
        ///
        /// One failure, one report: the error a client threw for a request MockNetwork has already
        /// reported (an unmatched one: the report names it, the nearest handler and the fix) is no
        /// second issue; and on Linux the first failure names the file the test's traffic goes to.
        private static func watchingIssues(
            _ failed: FailureFlag, _ noted: Flag, _ registry: MockRegistry, for test: Test, testCase: Test.Case?,
            _ body: @Sendable () async throws -> Void
        ) async throws {
            #if compiler(>=6.2)
                // The first failure names the file the traffic goes to (with the `Archives` trait).
                let note = { @Sendable (issue: Issue) -> Issue in
                    #if Archives
                        guard !noted.isSet,
                            let note = TrafficAttachment.failureNote(
                                registry, testName: TrafficAttachment.testName(test, testCase)),
                            noted.setFirst()
                        else { return issue }
                        var issue = issue
                        issue.comments.append(Comment(rawValue: note))
                        return issue
                    #else
                        return issue
                    #endif
                }
                let watch = IssueHandlingTrait.compactMapIssues { issue in
                    #if compiler(>=6.3)
                        guard issue.isFailure else { return issue }
                    #endif
                    failed.set()
                    if let error = issue.error, MockFailure.isReported(error), !registry.failures.isEmpty {
                        return nil  // its report comes at the end of the test, with this one's message in it
                    }
                    return note(issue)
                }
                try await watch.provideScope(for: test, testCase: testCase, performing: body)
            #else
                try await body()
            #endif
        }

        /// Registers the defaults of every `.mockNetwork` that reaches `test`, outermost first (this
        /// one is the innermost; a scope provided by hand, as a test of a trait does, is outside the list).
        private func registerDefaults(of test: Test, in registry: MockRegistry, fallback: MockNetwork.SourceLocation) {
            var traits = test.traits.compactMap { $0 as? MockNetworkTrait }
            if !traits.contains(where: { $0.identity == identity }) { traits.append(self) }
            for trait in traits {
                guard let defaults = trait.defaults else { continue }
                do {
                    try registry.registerDefaults(defaults)
                } catch {
                    Reporter.fail(
                        "MockNetwork: the defaults of .mockNetwork(defaults:) threw \(error). The test runs with the "
                            + "defaults registered before that; fix what threw there.",
                        at: nil, fallback: fallback, file: #filePath, line: #line)
                }
            }
        }

        /// Reports what the test's registry, and the process-wide one if the test used it, noticed
        /// as issues of the test.
        /// A failed test's report gets its traffic (`attachesTrafficOnFailure`); a passing one's never.
        private static func end(
            _ registry: MockRegistry, _ processWide: ProcessWideUse, fallback: MockNetwork.SourceLocation,
            test: Test, testCase: Test.Case?, failed: FailureFlag, noted: Flag
        ) async {
            let fail = { (failure: MockFailure) in
                #if !compiler(>=6.2)
                    failed.set()  // no issue handler sees it
                #endif
                Reporter.fail(failure.message, at: failure.location, fallback: fallback, file: #filePath, line: #line)
            }
            await Lifecycle.end(registry, through: fail) {
                #if Archives
                    if failed.isSet {
                        TrafficAttachment.attach(
                            registry, testName: TrafficAttachment.testName(test, testCase), at: test.sourceLocation,
                            named: noted.isSet)
                    }
                #endif
            }
            registry.testEnded(test.id.nameComponents.joined(separator: "."))
            guard processWide.used else { return }
            // Shared by every test in the process: its failures are reported, its handlers kept.
            Lifecycle.endProcessWide(reset: false, through: fail)
            if processWide.sharedWithAnotherTest {
                fail(
                    MockFailure(
                        message: "MockNetwork: this test used MockURLProtocol.registry while another test running at "
                            + "the same time used it too. It is one registry for the whole process, so the tests see "
                            + "each other's handlers and failures. Give each test its own: MockRegistry.current "
                            + "with the .mockNetwork trait, or mark the suite .serialized.",
                        location: nil))
            }
        }
    }

    extension MockRegistry {
        @TaskLocal static var scoped: MockRegistry?

        /// The registry of the running test, given by the `.mockNetwork` trait; inside a handler, the
        /// registry of the test the handler answers for.
        ///
        /// Read where there is none, it records an issue that says how to fix that (at the test, when
        /// one is running) and returns a new, empty registry. That happens outside a test with the
        /// trait, and in a `Task.detached` or a thread of your own, which task-local values, the test's
        /// registry among them, do not reach: read it in the test and pass the registry along.
        public static var current: MockRegistry {
            if let scoped { return scoped }
            let message: String
            var fallback = MockNetwork.SourceLocation()
            if let test = Test.current {
                fallback = MockNetwork.SourceLocation(test.sourceLocation)
                message =
                    "MockNetwork: MockRegistry.current was read in \(test.name), which does not have the .mockNetwork "
                    + "trait, so there is no registry for it. Add the trait: @Test(.mockNetwork) or @Suite(.mockNetwork)."
            } else {
                message =
                    "MockNetwork: MockRegistry.current was read where no test is running: outside a test with the "
                    + ".mockNetwork trait, or in a Task.detached or a thread of your own, which the test's task-local "
                    + "values do not reach. Read MockRegistry.current in the test and pass the registry along."
            }
            Reporter.fail(message, at: nil, fallback: fallback, file: #filePath, line: #line)
            return MockRegistry()
        }
    }

    /// Whether a test failed, set from wherever its issues are recorded.
    typealias FailureFlag = Flag
#endif
