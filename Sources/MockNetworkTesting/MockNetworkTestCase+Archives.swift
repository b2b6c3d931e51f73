// With the package's `Archives` trait (on by default): the base class replays and records archives.
#if canImport(XCTest) && Archives
    import Foundation
    import MockNetwork
    import MockNetworkArchives
    import XCTest

    extension MockNetworkTestCase {
        /// Answers this test's requests from a recorded HAR archive: `Archives/<name>.har` in the
        /// folder of the test's source file. Call it at the start of the test.
        ///
        /// ```swift
        /// func testFetchUser() async throws {
        ///     try useArchive("fetchUser")
        ///     let user = try await UserClient(session: session).user(id: 1)
        ///     XCTAssertEqual(user.name, "Ada")
        /// }
        /// ```
        /// Record it from the real server with `MOCKNETWORK_RECORD=once swift test --filter UserTests`
        /// and commit the file; from then on the test replays it.
        ///
        /// - Parameters:
        ///   - name: the archive's name, without `.har`.
        ///   - mode: record or replay; `nil` (the default) reads `MOCKNETWORK_RECORD`.
        ///   - matching: which requests an entry answers; method and full URL unless given.
        ///   - redaction: what is taken out before anything is written.
        ///   - latency: how long each replayed entry takes to answer; at once unless given.
        ///   - bundle: a bundle to replay the archive from when the source tree is not there (a device).
        ///   - fileID: the test's source file; leave the default.
        ///   - filePath: the test's source file; leave the default.
        ///   - line: where the call is; leave the default.
        ///   - column: where the call is; leave the default.
        /// - Throws: `HTTPArchive.LoadError` for a broken archive, `ArchiveError.missingArchive` when
        ///   there is nothing to replay.
        public func useArchive(
            _ name: String, mode: HTTPArchive.RecordMode? = nil, matching: HTTPArchive.Matching = .methodAndURL,
            redaction: HTTPArchive.Redaction = .standard, latency: HTTPArchive.Latency = .none, bundle: Bundle? = nil,
            fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
        ) throws {
            try ArchiveSupport.attach(
                mocks, name: name, sourceFile: filePath, bundle: bundle,
                settings: ArchiveSettings(mode: mode, matching: matching, redaction: redaction, latency: latency),
                testName: ArchiveSupport.filter(forXCTest: self.name),
                location: MockNetwork.SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        }
    }
#endif

// Without the trait: the spelling a test uses with it, as an error that says what is missing.
#if canImport(XCTest) && !Archives
    import XCTest

    extension MockNetworkTestCase {
        /// Archives need the package trait `Archives`, which this build turned off.
        @available(
            *, unavailable,
            message: "archives need MockNetwork's package trait Archives: drop traits: [] from the dependency"
        )
        public func useArchive(_ name: String) throws {}
    }
#endif
