import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of Archives.md, as written there (ArticleSnippetTests checks it): it compiles here,
// and runs, replaying the archive its relative path names (`enterFolderWithLoginArchive`).

final class ArchivesSnippetTests: XCTestCase {
    func testTheOverviewReplaysTheLogInFromTheArchive() async throws {
        try enterFolderWithLoginArchive(self)

        // Archives.md: Overview
        let mocks = MockRegistry()
        try mocks.useArchive(at: URL(fileURLWithPath: "Tests/Archives/login.har"))
        let token = try await LoginClient(session: mocks.session).logIn(user: "ada")
        // (end of snippet)

        XCTAssertEqual(token, "t-ada")
        XCTAssertEqual(mocks.requests.map(\.method), ["POST"])
        XCTAssertEqual(mocks.failures, [])
    }
}
