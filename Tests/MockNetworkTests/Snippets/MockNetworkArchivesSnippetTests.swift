import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of MockNetworkArchives.md (the MockNetworkArchives catalog's front page), as written there (ArticleSnippetTests checks it): it compiles here,
// and runs, replaying the archive its relative path names (`enterFolderWithLoginArchive`).

final class MockNetworkArchivesSnippetTests: XCTestCase {
    func testTheOverviewReplaysTheLogInFromTheArchive() async throws {
        try enterFolderWithLoginArchive(self)

        // MockNetworkArchives.md: Overview
        let mocks = MockRegistry()
        let file = URL(fileURLWithPath: "Tests/Archives/login.har")
        try mocks.useArchive(at: file)
        let token = try await LoginClient(session: mocks.session)
            .logIn(user: "ada")
        // (end of snippet)

        XCTAssertEqual(token, "t-ada")
        XCTAssertEqual(mocks.requests.map(\.method), ["POST"])
        XCTAssertEqual(mocks.failures, [])
    }
}
