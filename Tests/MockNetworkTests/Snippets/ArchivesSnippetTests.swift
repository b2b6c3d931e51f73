import Foundation
import MockNetwork
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of Archives.md, as written there (ArticleSnippetTests checks it): it compiles here,
// and runs, replaying the archive its relative path names (`enterFolderWithLoginArchive`).

/// The article's client: logs a user in, and reads the token from the answer.
private struct LoginClient {
    let session: URLSession

    private struct Answer: Decodable {
        let token: String
    }

    func logIn(user: String) async throws -> String {
        var request = URLRequest(url: URL(string: "https://api.example.com/login")!)
        request.httpMethod = "POST"
        request.httpBody = try JSONEncoder().encode(["user": user])
        let (data, _) = try await session.data(for: request)
        return try JSONDecoder().decode(Answer.self, from: data).token
    }
}

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
