import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client built, and handlers registered, in the set-up steps XCTest runs before `setUp()`.
final class EarlySetUpTests: MockNetworkTestCase {
    private var client: URLSession?

    override func setUp() async throws {
        try await super.setUp()
        register("https://api.example.com/early") { _ in .text("registered in setUp() async") }
    }

    override func setUpWithError() throws {
        try super.setUpWithError()
        client = session  // Xcode's template: the client is made here
    }

    func testClientAndHandlersFromEarlierSetUpStepsWork() async throws {
        let client = try XCTUnwrap(client)
        XCTAssertTrue(client === session, "setUp() kept the registry the earlier steps used")
        let reply = try await send(client, "GET", "https://api.example.com/early")
        XCTAssertEqual(reply.text, "registered in setUp() async")
    }
}

struct SensorReading: Encodable {
    let value: Double
}

/// Failures reach the test, at the user's line, with a message that fixes them.
final class LostFailureTests: FailureCapturingTestCase {
    private var registrationLine = 0
    private var expectFailures: [String] = []
    private var expectLines: [Int?] = []

    override func tearDown() {
        capturing = true
        super.tearDown()
        capturing = false
        XCTAssertEqual(captured.count, expectFailures.count, "\(captured)")
        for (text, prefix) in zip(captured, expectFailures) {
            XCTAssertTrue(text.hasPrefix(prefix), "\(text)\ndoes not start with\n\(prefix)")
        }
        if !expectLines.isEmpty {
            XCTAssertEqual(capturedAt.map { $0?.line }, expectLines)
            XCTAssertEqual(
                capturedAt.compactMap { $0?.file }, Array(repeating: "LostFailureTests.swift", count: expectLines.count)
            )
        }
    }

    // MARK: Where failures point (7)

    func testUnmetExpectedCallsPointAtTheRegistration() async throws {
        registrationLine = #line + 1
        register("https://api.example.com/token", expectedCalls: 2) { _ in .status(200) }
        _ = try await send(session, "GET", "https://api.example.com/token")
        expectFailures = ["MockNetwork: expected 2 calls to https://api.example.com/token, got 1."]
        expectLines = [registrationLine]
    }

    func testUnmatchedRequestPointsAtTheNearestRegistration() async throws {
        register("https://api.example.com/other") { _ in .status(200) }
        registrationLine = #line + 1
        register("https://api.example.com/users") { _ in .status(200) }
        _ = await thrownError { try await send(session, "GET", "https://api.example.com/users/") }
        expectFailures = ["MockNetwork: no handler for GET https://api.example.com/users/."]
        expectLines = [registrationLine]
    }

    // MARK: The process-wide registry (3)

    func testUnmatchedRequestOnTheProcessWideRegistryFailsTheTest() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        let tutorial = URLSession(configuration: configuration)
        MockURLProtocol.registry.register("https://api.example.com/wired") { _ in .text("wired") }
        let wired = try await send(tutorial, "GET", "https://api.example.com/wired")
        XCTAssertEqual(wired.text, "wired")
        let error = await thrownError { try await send(tutorial, "GET", "https://api.example.com/unwired") }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        expectFailures = ["MockNetwork: no handler for GET https://api.example.com/unwired."]
    }

    /// The README's "The tutorials' wiring", as it is there.
    func testReadmeTutorialWiring() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        let session = URLSession(configuration: configuration)
        let userURL = URL(string: "https://api.example.com/user")!
        MockURLProtocol.registry.register(.url(userURL)) { request in
            (HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!, Data("{}".utf8))
        }
        let (data, response) = try await session.data(from: userURL)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "{}")
        XCTAssertEqual(try status(response), 200)
    }

    func testProcessWideRegistryIsEmptiedBetweenTests() {
        // The test above registered /wired on it; the base class's tearDown emptied it.
        XCTAssertFalse(MockURLProtocol.registry.registered.contains("https://api.example.com/wired"))
    }

    // MARK: Authoring mistakes (5)

    func testUnencodableJSONFailsAtTheRegistration() async throws {
        registrationLine = #line + 1
        register("https://api.example.com/reading") { _ in .json(SensorReading(value: .nan)) }
        let error = await thrownError { try await send(session, "GET", "https://api.example.com/reading") }
        guard case .unencodableJSON(let type, _) = MockNetworkError(try XCTUnwrap(error)) else {
            return XCTFail("expected MockNetworkError.unencodableJSON, got \(String(describing: error))")
        }
        XCTAssertEqual(type, "SensorReading")
        expectFailures = ["MockNetwork: .json(_:) could not encode the SensorReading to JSON: "]
        expectLines = [registrationLine]
    }

    func testInvalidJSONBodyRuleFailsAtTheRegistration() {
        registrationLine = #line + 1
        register(.url("https://api.example.com/login").jsonBody("{user: 'ada'}")) { _ in .status(200) }
        XCTAssertEqual(mocks.registered, [])
        expectFailures = [
            #"MockNetwork: .jsonBody("{user: 'ada'}") is not valid JSON, so no request can match it and nothing was registered."#
        ]
        expectLines = [registrationLine]
    }

    // MARK: Status codes (6)

    func testTutorialHandlerWithAStatusOutside200To599Fails() async throws {
        for code in [0, 99, 600, -1, 100, 101, 103] {
            let address = "https://api.example.com/status/\(code + 1000)"
            register(.url(try url(address))) { request in
                guard
                    let response = HTTPURLResponse(
                        url: request.url!, statusCode: code, httpVersion: nil, headerFields: nil)
                else { throw URLError(.badServerResponse) }
                return (response, Data())
            }
            let error = await thrownError { try await send(session, "GET", address) }
            XCTAssertEqual(MockNetworkError(try XCTUnwrap(error)), .invalidStatusCode(code), "status \(code)")
        }
        expectFailures = [
            "MockNetwork: 0 is not an HTTP status code. Use a status in 200...599",
            "MockNetwork: 99 is not an HTTP status code.",
            "MockNetwork: 600 is not an HTTP status code.",
            "MockNetwork: -1 is not an HTTP status code.",
            "MockNetwork: 100 is an interim status, which URLSession never hands to a client as the answer.",
            "MockNetwork: 101 is an interim status",
            "MockNetwork: 103 is an interim status",
        ]
    }

    func testMockResponseRejectsInterimStatuses() {
        for code in [100, 101, 103, 199] {
            XCTAssertThrowsError(try MockResponse.status(code).validated()) { error in
                XCTAssertEqual(error as? MockNetworkError, .invalidStatusCode(code))
            }
        }
        XCTAssertEqual(MockResponse.status(200).status, 200)
        XCTAssertEqual(MockResponse.status(599).status, 599)
    }

    // MARK: Expecting a failure (8)

    func testTakeFailuresLetsATestExpectOne() async throws {
        _ = await thrownError { try await send(session, "GET", "https://api.example.com/nowhere") }
        let failures = mocks.takeFailures()
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures[0].message.hasPrefix("MockNetwork: no handler for GET https://api.example.com/nowhere."))
        XCTAssertEqual(mocks.failures, [])
    }

    // MARK: Messages (9)

    func testRedirectLoopNamesWhereTheChainStarted() async throws {
        register("https://api.example.com/loop/a") { _ in .redirect(to: "https://api.example.com/loop/b") }
        register("https://api.example.com/loop/b") { _ in .redirect(to: "https://api.example.com/loop/a") }
        let error = await thrownError { try await send(session, "GET", "https://api.example.com/loop/a") }
        XCTAssertEqual(
            (error as? URLError)?.localizedDescription,
            "MockNetwork: more than 16 redirects, starting at https://api.example.com/loop/a.")
    }

    func testLongURLsAreShortenedInMessages() async throws {
        let long = "https://api.example.com/search?q=" + String(repeating: "x", count: 100_000)
        _ = await thrownError { try await send(session, "GET", long) }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        XCTAssertLessThan(message.utf8.count, 2_000)
        XCTAssertTrue(message.hasPrefix("MockNetwork: no handler for GET https://api.example.com/search?q=xxx"))
        XCTAssertTrue(message.contains("…(\(long.count - 260) more characters)…"), message)
    }

    func testAnEmptyMethodIsNamedGET() async throws {
        _ = await thrownError { try await send(session, "", "https://api.example.com/blank") }
        XCTAssertTrue(
            mocks.takeFailures().first?.message.hasPrefix(
                "MockNetwork: no handler for GET https://api.example.com/blank.")
                ?? false)
        XCTAssertEqual(mocks.requests.map(\.method), ["GET"])
    }

    func testRecordModeIgnoresSpacesAroundIt() throws {
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": " once"]), .once)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "rewrite\n"]), .rewrite)
        XCTAssertEqual(try HTTPArchive.RecordMode.fromEnvironment(["MOCKNETWORK_RECORD": "  "]), .never)
    }

    // MARK: Conveniences (10)

    func testHandlersKeyedByURLAndTutorialHandlersWithARequestMatch() async throws {
        let profile = try url("https://api.example.com/profile")
        register(.url(profile)) { _ in .text("by URL") }
        register(.url(try url("https://api.example.com/legacy")), method: "POST") { request in
            (
                HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: nil)!,
                Data("legacy".utf8)
            )
        }
        register(.url("https://api.example.com/login").method("POST").header("X-Key", "k")) { request in
            (HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: nil)!, Data("in".utf8))
        }
        let byURL = try await send(session, "GET", "https://api.example.com/profile")
        XCTAssertEqual(byURL.text, "by URL")
        let legacy = try await send(session, "POST", "https://api.example.com/legacy")
        XCTAssertEqual([legacy.status], [201])
        XCTAssertEqual(legacy.text, "legacy")
        let login = try await send(session, "POST", "https://api.example.com/login", headers: ["X-Key": "k"])
        XCTAssertEqual(login.text, "in")
    }
}
