import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class UnmatchedRequestTests: XCTestCase {
    /// Requests `requested` from a registry that has only `registered`, and returns the error the
    /// client got and the failure the test would report.
    private func unmatched(_ requested: String, registered: [String]) async throws -> (URLError?, String) {
        let mocks = MockRegistry()
        for text in registered { mocks.register(.url(text)) { _ in .status(200) } }
        let error = await thrownError { try await mocks.session.data(from: try url(requested)) }
        let failures = mocks.failures
        XCTAssertEqual(failures.count, 1)
        return (error as? URLError, failures.first?.message ?? "")
    }

    func testUnmatchedRequestFailsWithURLErrorNamingMethodAndURL() async throws {
        let (error, message) = try await unmatched("https://dog.ceo/api/breeds", registered: [])
        XCTAssertEqual(error?.code, .resourceUnavailable)
        XCTAssertEqual(
            error?.localizedDescription,
            "MockNetwork: no handler for GET https://dog.ceo/api/breeds (nothing is registered; the test's failure "
                + "says why and how to fix it).", "with nothing registered, the error is short: the report has it all")
        XCTAssertTrue(
            error?.localizedDescription.hasPrefix("MockNetwork: no handler for GET https://dog.ceo/api/breeds")
                ?? false,
            error?.localizedDescription ?? "no error")
        XCTAssertEqual(
            message,
            """
            MockNetwork: no handler for GET https://dog.ceo/api/breeds.
            Nothing is registered.
            Fix: register a handler for this URL, e.g. register("https://dog.ceo/api/breeds") { _ in .status(200) }, \
            or correct the URL the client builds.
            """)
    }

    func testWhenOnlyTheQueryDiffersTheFixNamesTheQueryRules() async throws {
        let (_, message) = try await unmatched(
            "https://api.example.com/items?page=2", registered: ["https://api.example.com/items?page=1"])
        XCTAssertEqual(
            message.split(separator: "\n").last,
            """
            Fix: only the query differs. Register this URL, e.g. register("https://api.example.com/items?page=2") \
            { _ in .status(200) }; or let the handler take any query, .url("https://api.example.com/items", \
            query: .ignored); or require only the items that matter, .url("https://api.example.com/items", \
            query: .ignored).query(["name": "value"]).
            """)
    }

    func testNearestMatchListsRegisteredURLsAndTheTrailingSlash() async throws {
        let (_, message) = try await unmatched(
            "https://dog.ceo/api/breed/hound/images/",
            registered: ["https://dog.ceo/api/breed/hound/images", "https://dog.ceo/api/breeds/list"])
        XCTAssertEqual(
            message,
            """
            MockNetwork: no handler for GET https://dog.ceo/api/breed/hound/images/.
            Nearest: https://dog.ceo/api/breed/hound/images (trailing slash: the requested path ends in "/", \
            the registered "/api/breed/hound/images" does not)
            Registered (2):
              https://dog.ceo/api/breed/hound/images
              https://dog.ceo/api/breeds/list
            Fix: register a handler for this URL, e.g. register("https://dog.ceo/api/breed/hound/images/") { _ in .status(200) }, \
            or correct the URL the client builds.
            """)
    }

    func testNearestMatchExplainsQueryOrder() async throws {
        let (_, message) = try await unmatched(
            "https://api.example.com/search?b=2&a=1", registered: ["https://api.example.com/search?a=1&b=2"])
        XCTAssertTrue(
            message.contains(
                "Nearest: https://api.example.com/search?a=1&b=2 (query order: requested ?b=2&a=1, registered ?a=1&b=2)"
            ),
            message)
    }

    func testNearestMatchExplainsScheme() async throws {
        let (_, message) = try await unmatched(
            "http://api.example.com/user", registered: ["https://api.example.com/user"])
        XCTAssertTrue(message.contains("Nearest: https://api.example.com/user (scheme http ≠ https)"), message)
    }

    func testNearestMatchExplainsHost() async throws {
        let (_, message) = try await unmatched(
            "https://staging.example.com/user", registered: ["https://api.example.com/user", "https://api.other.com/x"])
        XCTAssertTrue(
            message.contains(
                "Nearest: https://api.example.com/user (host \"staging.example.com\" ≠ \"api.example.com\")"),
            message)
    }

    func testNearestMatchExplainsPath() async throws {
        let (_, message) = try await unmatched(
            "https://api.example.com/v2/user", registered: ["https://api.example.com/v1/user", "https://x.org/"])
        XCTAssertTrue(
            message.contains("Nearest: https://api.example.com/v1/user (path \"/v2/user\" ≠ \"/v1/user\")"), message)
    }

    func testNearestMatchExplainsMissingQuery() async throws {
        let (_, message) = try await unmatched(
            "https://api.example.com/list?page=2", registered: ["https://api.example.com/list"])
        XCTAssertTrue(message.contains("(query ?page=2 ≠ (none))"), message)
    }

    func testLongListsAreCut() async throws {
        let registered = (0..<25).map { "https://api.example.com/item/\($0)" }
        let (_, message) = try await unmatched("https://api.example.com/item/x", registered: registered)
        XCTAssertTrue(message.contains("Registered (25):"), message)
        XCTAssertTrue(message.contains("  … and 15 more"), message)
    }

    func testTheProcessGoesOnAndLaterRequestsAreAnswered() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/ok") { _ in .text("ok") }
        _ = try? await mocks.session.data(from: try url("https://api.example.com/missing"))
        let (data, _) = try await mocks.session.data(from: try url("https://api.example.com/ok"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "ok")
        XCTAssertEqual(mocks.failures.count, 1)
    }

    func testOtherSchemesAreAnsweredOrFailedButNeverLoaded() async throws {
        let mocks = MockRegistry()
        mocks.register("myapp://settings/profile") { _ in .text("custom scheme") }
        let (data, _) = try await mocks.session.data(from: try url("myapp://settings/profile"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "custom scheme")
        let error = await thrownError { try await mocks.session.data(from: try url("ftp://files.example.com/a.txt")) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
    }

    func testRegisteringSomethingThatIsNoURLIsAFailureNotACrash() {
        let mocks = MockRegistry()
        mocks.register("dog.ceo/api") { _ in .status(200) }
        XCTAssertEqual(mocks.registered, [])
        XCTAssertEqual(
            mocks.failures.first?.message,
            "MockNetwork: register(\"dog.ceo/api\") is not an absolute URL, so nothing was registered. "
                + "Give the full URL with its scheme, e.g. \"https://api.example.com/path\".")
        XCTAssertEqual(mocks.failures.first?.location?.line, #line - 6)
    }

    func testRegisteringTheSameURLTwiceKeepsTheLatest() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v") { _ in .text("first") }
        mocks.register("https://api.example.com/v") { _ in .text("second") }
        let (data, _) = try await mocks.session.data(from: try url("https://api.example.com/v"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "second")
        XCTAssertEqual(mocks.registered, ["https://api.example.com/v"])
    }
}
