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
            issue.comments.first?.rawValue.hasPrefix("MockNetwork: no entry for GET") == true
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
