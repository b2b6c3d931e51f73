import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

private struct Order: Codable, Equatable {
    let item: String
    let quantity: Int
}

/// Checking traffic after the fact: the requests a match describes, readers for their bodies and
/// queries, counts with a message that names what was seen, and handlers never called.
final class VerificationTests: XCTestCase {
    private let orders = "https://api.example.com/orders"

    private func post(_ mocks: MockRegistry, _ address: String, _ body: String, type: String) async throws {
        var request = URLRequest(url: try url(address))
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue(type, forHTTPHeaderField: "Content-Type")
        _ = try await mocks.session.data(for: request)
    }

    func testRequestsMatchingAndTheirReaders() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com")) { _ in .status(204) }
        try await post(mocks, orders + "?source=app&tag=a+b", #"{"item":"tea","quantity":2}"#, type: "application/json")
        _ = try await mocks.session.data(from: try url(orders))
        try await post(
            mocks, "https://api.example.com/login", "user=ada+l&code=%2A1", type: "application/x-www-form-urlencoded")

        let posts = mocks.requests(matching: .url(orders, query: .ignored).method("POST"))

        XCTAssertEqual(posts.count, 1)
        XCTAssertEqual(try posts.first?.json(Order.self), Order(item: "tea", quantity: 2))
        XCTAssertEqual(posts.first?.text, #"{"item":"tea","quantity":2}"#)
        XCTAssertEqual(
            posts.first?.queryItems,
            [URLQueryItem(name: "source", value: "app"), URLQueryItem(name: "tag", value: "a b")])
        let login = mocks.requests(matching: .url("https://api.example.com/login"))
        XCTAssertEqual(
            login.first?.formFields,
            [URLQueryItem(name: "user", value: "ada l"), URLQueryItem(name: "code", value: "*1")])
        XCTAssertEqual(
            mocks.requests(matching: .host("api.example.com").method("GET")).map(\.url.absoluteString), [orders])
    }

    func testFormFieldsAreEmptyForABodyThatIsNoForm() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/form").method("POST"), answer: .status(204))
        _ = try await send(
            mocks.session, "POST", "https://api.example.com/form", headers: ["Content-Type": "application/json"],
            body: Data(#"{"user": "ada"}"#.utf8))
        _ = try await send(mocks.session, "POST", "https://api.example.com/form", body: Data("user=ada".utf8))
        XCTAssertEqual(mocks.requests.map(\.formFields), [[], [URLQueryItem(name: "user", value: "ada")]])
    }

    func testABodyThatDoesNotDecodeSaysWhatItHeld() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(orders), method: "POST") { _ in .status(201) }
        try await post(mocks, orders, #"{"item":"tea"}"#, type: "application/json")

        XCTAssertThrowsError(try mocks.requests.first?.json(Order.self)) { error in
            XCTAssertEqual(
                "\(error)",
                #"MockNetwork: the body of POST https://api.example.com/orders is not a Order: no key "quantity". "#
                    + #"The body: {"item":"tea"}."#)
        }
    }

    func testACountThatIsMetSaysNothing() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(orders), method: "POST") { _ in .status(201) }
        try await post(mocks, orders, "{}", type: "application/json")

        XCTAssertNil(mocks.countFailure(.url(orders).method("POST"), .exactly(1)))
        XCTAssertNil(mocks.countFailure(.url(orders).method("POST"), .atLeast(1)))
        XCTAssertNil(mocks.countFailure(.url(orders).method("DELETE"), .never))
        XCTAssertNil(mocks.countFailure(.url(orders), .atMost(1)))
    }

    func testAnUnmetCountNamesWhatWasSeenAndTheNearest() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com")) { _ in .status(200) }
        try await post(mocks, orders, "{}", type: "application/json")
        _ = try await mocks.session.data(from: try url(orders))

        XCTAssertEqual(
            mocks.countFailure(.url(orders).method("POST"), .exactly(2)),
            """
            MockNetwork: expected exactly 2 requests matching POST \(orders), got 1.
            Matching: POST \(orders)
            Requested (2): POST \(orders); GET \(orders)
            Nearest: GET \(orders) (method GET ≠ POST)
            """)
        XCTAssertEqual(
            mocks.countFailure(.url(orders).method("GET"), .never),
            """
            MockNetwork: expected no request matching GET \(orders), got 1.
            Matching: GET \(orders)
            Requested (2): POST \(orders); GET \(orders)
            """)
    }

    /// A match no request can ever match is refused by checks after the fact as registration
    /// refuses it, instead of passing as "no such request came".
    func testChecksRefuseAMatchThatCanNeverMatch() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/users/1", answer: .json(#"{"user": "ada"}"#))
        _ = try await send(
            mocks.session, "POST", "https://api.example.com/users/1", body: Data(#"{"user":"ada"}"#.utf8))
        let cases: [(RequestMatch, String)] = [
            (
                .url("api.example.com/users/1"),
                "\"api.example.com/users/1\" is not an absolute URL, so no request can match it. Give the full URL "
                    + "with its scheme, e.g. \"https://api.example.com/path\"."
            ),
            (.url("https://api.example.com/users/{}"), "\"{}\""),
            (.url("https://api.example.com/users/u{id}"), "u{id}"),
            (
                .url("https://api.example.com/users/1").jsonBody("{user: ada}"),
                ".jsonBody(\"{user: ada}\") is not valid JSON, so no request can match it. Write the body as JSON, "
                    + "with double-quoted keys and strings, e.g. .jsonBody(#\"{\"user\": \"ada\"}\"#)."
            ),
        ]
        for (match, says) in cases {
            let failure = try XCTUnwrap(mocks.countFailure(match, .never), "\(match)")
            XCTAssertTrue(failure.hasPrefix("MockNetwork: expect(_:count:) checks nothing: "), failure)
            XCTAssertTrue(failure.contains(says), failure)

            let line = #line + 1
            XCTAssertEqual(mocks.requests(matching: match), [])
            let recorded = try XCTUnwrap(mocks.takeFailures().first)
            XCTAssertTrue(recorded.message.hasPrefix("MockNetwork: requests(matching:) checks nothing: "))
            XCTAssertTrue(recorded.message.contains(says), recorded.message)
            XCTAssertEqual(recorded.location?.line, line)

            let error = try await withWatchdog(10) {
                await thrownError { try await mocks.nextRequest(matching: match, timeout: 5) }
            }
            let text = "\(error.map { "\($0)" } ?? "")"
            XCTAssertTrue(text.hasPrefix("MockNetwork: nextRequest(matching:timeout:) checks nothing: "), text)
        }
    }

    func testEveryHandlerCalledIsRequiredOnlyWhenAskedFor() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register("https://api.example.com/unused") { _ in .status(200) }
        mocks.register(.url(orders)) { _ in .status(200) }
        _ = try await mocks.session.data(from: try url(orders))

        XCTAssertEqual(mocks.endOfTestFailures(), [])
        mocks.requiresEveryHandlerCalled = true
        let failures = mocks.endOfTestFailures()

        XCTAssertEqual(
            failures.map(\.message),
            [
                "MockNetwork: the handler for https://api.example.com/unused was never called, and this test requires "
                    + "every handler to be (requiresEveryHandlerCalled). Check that the code under test makes this "
                    + "request, or remove the handler."
            ])
        XCTAssertEqual(failures.first?.location?.line, line)
    }
}

/// The base class's switch for handlers never called.
final class StrictTestCaseTests: MockNetworkTestCase {
    override var requiresEveryHandlerCalled: Bool { true }

    func testTheBaseClassPassesItsSwitchToTheRegistry() async throws {
        register("https://api.example.com/used") { _ in .status(200) }
        _ = try await session.data(from: try url("https://api.example.com/used"))

        XCTAssertTrue(mocks.requiresEveryHandlerCalled)
        XCTAssertEqual(mocks.endOfTestFailures(), [])
    }
}
