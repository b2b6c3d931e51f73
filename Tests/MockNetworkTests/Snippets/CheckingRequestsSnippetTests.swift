import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of CheckingRequests.md, as written there (ArticleSnippetTests checks them): they
// compile here, and run.

/// The order the client posts.
private struct Order: Codable {
    let quantity: Int
}

final class CheckingRequestsSnippetTests: MockNetworkTestCase {
    func testTheOverviewReadsBackTheRequestsAndCountsCalls() async throws {
        register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
        let user = try await send(session, "GET", "https://api.example.com/user")
        XCTAssertEqual(user.status, 200)

        // CheckingRequests.md: Overview
        let requests = mocks.requests  // every request, in order: method, url, headers and body bytes
        let curl = mocks.requests[0].curlCommand  // the request as a curl command line, to replay by hand
        let userCalls = mocks.callCount(for: "https://api.example.com/user")
        let route = mocks.register("https://api.example.com/token", method: "POST", expectedCalls: 1) { _ in
            .json("{}")
        }
        let tokenCalls = route.callCount
        // (end of snippet)

        XCTAssertEqual(requests.map(\.method), ["GET"])
        XCTAssertEqual(requests.map(\.url.absoluteString), ["https://api.example.com/user"])
        XCTAssertTrue(curl.hasPrefix("curl "), curl)
        XCTAssertTrue(curl.hasSuffix(" 'https://api.example.com/user'"), curl)
        XCTAssertEqual(userCalls, 1)
        XCTAssertEqual(tokenCalls, 0, "read before any request for the token")
        let token = try await send(session, "POST", "https://api.example.com/token")
        XCTAssertEqual(token.text, "{}")
        XCTAssertEqual(route.callCount, 1, "the one call `expectedCalls` asks for")
    }

    func testTheChecksAfterTheFactUseTheMatchesHandlersUse() async throws {
        register("https://api.example.com/orders", method: "POST") { _ in .status(201) }
        let body = try JSONEncoder().encode(Order(quantity: 2))
        let reply = try await send(session, "POST", "https://api.example.com/orders", body: body)
        XCTAssertEqual(reply.status, 201)

        // CheckingRequests.md: After the fact, with the same matches handlers use
        let posts = mocks.requests(matching: .url("https://api.example.com/orders").method("POST"))
        XCTAssertEqual(try posts[0].json(Order.self).quantity, 2)  // also .text, .queryItems, .formFields
        XCTAssertEqual(posts[0].bodyJSON, ["quantity": 2])  // the body as JSON, whatever the key order
        mocks.expect(.url("https://api.example.com/orders").method("POST"), count: .exactly(1))
        mocks.expect(.host("tracker.example.com"), count: .never)  // .atLeast(n), .atMost(n) too
        // (end of snippet)

        XCTAssertEqual(posts.count, 1)
        XCTAssertEqual(posts[0].bodyText, #"{"quantity":2}"#)
    }
}
