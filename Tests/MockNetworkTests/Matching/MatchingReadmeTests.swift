import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Order: Codable {
    let quantity: Int
}

// The README's snippets for templates, partial queries, checks after the fact and the `status`
// modifier, as they are written there: they compile here, and run.
final class MatchingReadmeTests: MockNetworkTestCase {
    func testTheTemplateSnippetsAnswer() async throws {
        // README: Matching
        mocks.register("https://api.example.com/v1/users/{id}/posts/{postID}") { request, parameters in
            .json(#"{"user": "\#(parameters["id"]!)", "post": "\#(parameters["postID"]!)"}"#)
        }
        mocks.register(.host("cdn.example.com", path: "/files/{path*}")) { _, parameters in
            .text("file \(parameters["path"]!)")  // the rest of the path, slashes and all
        }
        mocks.register(.url("https://api.example.com/search", query: .ignored).query(["q": "swift"])) { _ in
            .json("[]")  // ?q=swift&page=2 matches; ?q=rust does not
        }
        // (end of snippet)

        let post = try await session.data(from: try url("https://api.example.com/v1/users/ada/posts/7")).0
        let file = try await session.data(from: try url("https://cdn.example.com/files/img/a%20b.png")).0
        let search = try await session.data(from: try url("https://api.example.com/search?q=swift&page=2")).0

        XCTAssertEqual(String(decoding: post, as: UTF8.self), #"{"user": "ada", "post": "7"}"#)
        XCTAssertEqual(String(decoding: file, as: UTF8.self), "file img/a b.png")
        XCTAssertEqual(String(decoding: search, as: UTF8.self), "[]")
    }

    func testTheChecksAfterTheFactPass() async throws {
        register("https://api.example.com/orders", method: "POST") { _ in .json("{}").status(201) }
        var request = URLRequest(url: try url("https://api.example.com/orders"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"quantity": 2}"#.utf8)
        let (_, response) = try await session.data(for: request)
        XCTAssertEqual(try status(response), 201)

        // README: What the test can check
        let posts = mocks.requests(matching: .url("https://api.example.com/orders").method("POST"))
        XCTAssertEqual(try posts[0].json(Order.self).quantity, 2)  // also .text, .queryItems, .formFields
        mocks.expect(.url("https://api.example.com/orders").method("POST"), count: .exactly(1))
        mocks.expect(.host("tracker.example.com"), count: .never)  // .atLeast(n), .atMost(n) too
        // (end of snippet)
        // "Checking requests" also shows:
        XCTAssertEqual(posts[0].bodyJSON, ["quantity": 2])  // the body as JSON, whatever the key order
    }

    func testTheStatusModifierChangesABuiltResponsesStatus() throws {
        let response = MockResponse.json(#"{"error": "down"}"#).status(503)

        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
        XCTAssertThrowsError(try MockResponse.text("x").status(99).validated()) { error in
            XCTAssertEqual(error as? MockNetworkError, .invalidStatusCode(99))
        }
    }
}
