// With the package's `Archives` trait (on by default): the trait replays and records archives.
#if canImport(Testing) && Archives
    import Foundation
    import MockNetwork
    import MockNetworkArchives
    import Testing

    extension Trait where Self == MockNetworkTrait {
        /// `.mockNetwork`, with the test's requests answered from a recorded HAR archive:
        /// `Archives/<archive>.har` in the folder of the test's source file.
        ///
        /// ```swift
        /// @Test(.mockNetwork(archive: "fetchUser"))
        /// func fetchUser() async throws {
        ///     let user = try await UserClient(session: MockRegistry.current.session).user(id: 1)
        ///     #expect(user.name == "Ada")
        /// }
        /// ```
        /// Record it once from the real server with `MOCKNETWORK_RECORD=once swift test --filter fetchUser`
        /// and commit the file; from then on the test replays it.
        ///
        /// Each case of a parameterized test gets an archive of its own, named after its arguments:
        /// `Archives/<archive>/<arguments>.har` (`fetchUser/1.har`, `fetchUser/2.har`). On a suite,
        /// each test gets its own: `Archives/<archive>/<test function>.har`, with the names of
        /// nested suites as folders between (`shop/Cart/load.har`).
        ///
        /// - Parameters:
        ///   - archive: the archive's name, without `.har`.
        ///   - mode: record or replay; `nil` (the default) reads `MOCKNETWORK_RECORD`.
        ///   - matching: which requests an entry answers; method and full URL unless given.
        ///   - redaction: what is taken out before anything is written.
        ///   - latency: how long each replayed entry takes to answer; at once unless given.
        ///   - bundle: a bundle to replay the archive from when the source tree is not there (a device).
        ///   - filePath: the test's source file; leave the default.
        public static func mockNetwork(
            archive: String, mode: HTTPArchive.RecordMode? = nil, matching: HTTPArchive.Matching = .methodAndURL,
            redaction: HTTPArchive.Redaction = .standard, latency: HTTPArchive.Latency = .none,
            bundle: Bundle? = nil, filePath: String = #filePath
        ) -> Self {
            MockNetworkTrait(
                archive: MockNetworkTrait.Archive(
                    name: archive,
                    settings: ArchiveSettings(mode: mode, matching: matching, redaction: redaction, latency: latency),
                    bundle: bundle, sourceFile: filePath))
        }
    }

    extension MockNetworkTrait {
        /// The archive a `.mockNetwork(archive:)` trait gives each test it reaches.
        struct Archive: Sendable {
            let name: String
            let settings: ArchiveSettings
            let bundle: Bundle?
            let sourceFile: String

            /// Replays or records the archive of `test` (and `testCase`) on `registry`.
            func attach(
                to registry: MockRegistry, test: Test, testCase: Test.Case?, location: MockNetwork.SourceLocation
            ) throws {
                let testName = ArchiveSupport.filter(forTest: test.name)
                let name = try ArchiveNames.name(
                    archive: self.name, suites: MockNetworkTrait.archiveSuites, test: test, testCase: testCase)
                try ArchiveSupport.attach(
                    registry, name: name, sourceFile: sourceFile, bundle: bundle, settings: settings,
                    testName: testName, location: location)
            }
        }

        /// For each archive name a suite's trait gives, the ID components of the outermost such
        /// suite: each of its tests gets an archive of its own, at its path inside that suite.
        @TaskLocal static var archiveSuites: [String: [String]] = [:]
    }
#endif

// Without the trait: the spelling a test uses with it, as an error that says what is missing.
#if canImport(Testing) && !Archives
    import Testing

    extension Trait where Self == MockNetworkTrait {
        /// Archives need the package trait `Archives`, which this build turned off.
        @available(
            *, unavailable,
            message: "archives need MockNetwork's package trait Archives: drop traits: [] from the dependency"
        )
        public static func mockNetwork(archive: String) -> Self { MockNetworkTrait() }
    }
#endif
