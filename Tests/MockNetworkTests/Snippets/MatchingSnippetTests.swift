import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of Matching.md, as written there (ArticleSnippetTests checks them): they compile
// here, and run.

final class MatchingSnippetTests: MockNetworkTestCase {
    func testTheOverviewsMatchesAnswerTheRequestsTheyDescribe() async throws {
        // Matching.md: Overview
        mocks.register("https://api.example.com/items", method: "POST") { _ in .status(201) }
        mocks.register(.url("https://api.example.com/search?b=2&a=1", query: .anyOrder)) { _ in .json("[]") }
        mocks.register(.url("https://api.example.com/list", query: .ignored)) { _ in .json("[]") }
        mocks.register(.host("*.example.com", path: "/v1/users/*").method("DELETE")) { _ in .status(204) }
        mocks.register(
            .url("https://api.example.com/login").method("POST")
                .header("Content-Type", "application/json")
                .jsonBody(#"{"user": "ada", "password": "secret"}"#)  // equal JSON, any key order
        ) { _ in .json(#"{"token": "t"}"#) }
        // swift-format-ignore
        mocks.register(.url("https://api.example.com/upload").when("body under 1 KB") { ($0.httpBody?.count ?? 0) < 1024 }) { _ in
            .status(200)
        }
        // (end of snippet)

        let items = try await send(session, "POST", "https://api.example.com/items")
        let search = try await send(session, "GET", "https://api.example.com/search?a=1&b=2")
        let list = try await send(session, "GET", "https://api.example.com/list?page=3")
        let user = try await send(session, "DELETE", "https://eu.example.com/v1/users/42")
        let login = try await send(
            session, "POST", "https://api.example.com/login", headers: ["Content-Type": "application/json"],
            body: Data(#"{"password":"secret","user":"ada"}"#.utf8))
        let upload = try await send(
            session, "POST", "https://api.example.com/upload", body: Data(repeating: 1, count: 512))

        XCTAssertEqual(items.status, 201)
        XCTAssertEqual([search.text, list.text], ["[]", "[]"])
        XCTAssertEqual(user.status, 204)
        XCTAssertEqual(login.text, #"{"token": "t"}"#)
        XCTAssertEqual(upload.status, 200)
        XCTAssertEqual(mocks.requests.count, 6)
    }
}
