import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private func body(_ session: URLSession, _ address: String) async throws -> String {
    let (data, _) = try await session.data(from: try #require(URL(string: address)))
    return String(decoding: data, as: UTF8.self)
}

/// `.mockNetwork(archive:)` replays `Archives/<name>.har` next to this file (committed, in
/// Tests/MockNetworkTests/SwiftTesting/Archives/).
struct ArchiveTraitTests {
    @Test(.mockNetwork(archive: "traitUser", mode: .never))
    func replaysTheArchiveNextToTheTest() async throws {
        let session = MockRegistry.current.session
        #expect(try await body(session, "https://api.example.com/users/1") == #"{"id":1,"name":"Ada"}"#)
        #expect(try await body(session, "https://api.example.com/users/1") == #"{"id":1,"name":"Ada Lovelace"}"#)
        #expect(MockRegistry.current.archiveFile?.lastPathComponent == "traitUser.har")
        #expect(MockRegistry.current.archiveFile?.deletingLastPathComponent().lastPathComponent == "Archives")
    }

    @Test(.mockNetwork(archive: "traitUser", mode: .never))
    func requestMissingFromTheArchiveNamesTheTestInTheRecordCommand() async throws {
        let mocks = MockRegistry.current
        await #expect(throws: URLError.self) {
            _ = try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/users/2")))
        }
        let message = try #require(mocks.failures.first?.message)
        #expect(message.hasPrefix("MockNetwork: no entry for GET https://api.example.com/users/2 in the archive "))
        #expect(message.contains("/SwiftTesting/Archives/traitUser.har."))
        #expect(
            message.hasSuffix(
                "MOCKNETWORK_RECORD=missing swift test --filter 'requestMissingFromTheArchiveNamesTheTestInTheRecordCommand' "
                    + "(or correct the URL the client builds)."))
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages.first?.hasPrefix("MockNetwork: no entry for GET") == true
        }
    }
}

/// On a suite, each test replays an archive of its own: `Archives/<name>/<test function>.har`.
@Suite(.mockNetwork(archive: "suiteArchive", mode: .never))
struct ArchiveSuiteTraitTests {
    @Test func firstTest() async throws {
        #expect(try await body(MockRegistry.current.session, "https://api.example.com/feed") == #"["a"]"#)
    }

    @Test func secondTest() async throws {
        #expect(try await body(MockRegistry.current.session, "https://api.example.com/feed") == #"["b"]"#)
    }
}

extension ArchiveSuiteTraitTests {
    /// A test of a nested suite has its own archive, `suiteArchive/Nested/firstTest.har`, not that of
    /// the outer suite's test of the same name.
    struct Nested {
        @Test func firstTest() async throws {
            #expect(try await body(MockRegistry.current.session, "https://api.example.com/feed") == #"["nested"]"#)
            #expect(
                MockRegistry.current.archiveFile?.pathComponents.suffix(3) == [
                    "suiteArchive", "Nested", "firstTest.har",
                ])
        }
    }
}

extension ArchiveSuiteTraitTests {
    /// A nested suite that names another archive: its tests use that one alone (one registry, not
    /// one for each trait in effect).
    @Suite(.mockNetwork(archive: "otherArchive", mode: .never))
    struct OtherArchive {
        @Test func firstTest() async throws {
            #expect(try await body(MockRegistry.current.session, "https://api.example.com/feed") == #"["other"]"#)
            #expect(
                MockRegistry.current.archiveFile?.pathComponents.suffix(2) == ["otherArchive", "firstTest.har"])
        }
    }
}

/// Each case of a parameterized test replays its own archive, named after its arguments:
/// `caseArchive/ada.har`, and `caseArchive/bob_lee-<hash>.har` for an argument with a space.
struct ArchiveCaseTraitTests {
    @Test(.mockNetwork(archive: "caseArchive", mode: .never), arguments: ["ada", "bob lee"])
    func eachCaseReplaysItsOwnArchive(user: String) async throws {
        let reply = try await body(MockRegistry.current.session, "https://api.example.com/users/me")
        #expect(reply == #"{"name":"\#(user)"}"#)
    }
}

/// Cases of a parameterized test record at the same time, each into its own archive, and then replay it.
struct ArchiveCaseRecordingTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "ArchiveCaseRecordingTests-\(UUID().uuidString)")

    @Test(arguments: [1, 2, 3])
    func eachCaseRecordsThenReplaysItsOwnArchive(number: Int) async throws {
        let server = try LoopbackServer(
            routes: ["GET /case/\(number)": .init(status: 200, text: "case \(number)")], maxRequests: 2, lifetime: 20)
        defer { server.stop() }
        let url = try #require(server.url("/case/\(number)"))
        let source = Self.folder.appendingPathComponent("CaseTests.swift").path
        let test = try #require(Test.current)
        for mode in [HTTPArchive.RecordMode.once, .never] {
            // What `@Test(.mockNetwork(archive: "cases"), arguments: [1, 2, 3])` does for this case.
            let trait = MockNetworkTrait.mockNetwork(archive: "cases", mode: mode, filePath: source)
            try await trait.provideScope(for: test, testCase: Test.Case.current) { () async throws in
                #expect(try await body(MockRegistry.current.session, url.absoluteString) == "case \(number)")
            }
            server.stop()  // replaying needs no server
        }
        let file = Self.folder.appendingPathComponent("Archives/cases/\(number).har")
        #expect(try HTTPArchive(contentsOf: file).entries.map(\.request.url) == [url.absoluteString])
        try? FileManager.default.removeItem(at: file)
        // The folders go with the last case's file: `rmdir` removes only an empty folder.
        for folder in ["Archives/cases", "Archives", ""] {
            _ = rmdir(Self.folder.appendingPathComponent(folder).path)
        }
    }
}
