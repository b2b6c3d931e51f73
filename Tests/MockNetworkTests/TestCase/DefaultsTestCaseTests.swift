import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A suite's base class with defaults, as a user would write it.
class FlagsAPITestCase: FailureCapturingTestCase {
    override func registerDefaults(in mocks: MockRegistry) throws {
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        mocks.register(.host("api.example.com", path: "/v1/*")) { _ in .status(404) }
    }
}

/// `MockNetworkTestCase.registerDefaults(in:)`: every test starts with them; its own win.
final class DefaultsTestCaseTests: FlagsAPITestCase {
    /// XCTest runs `setUpWithError()` before `setUp()`: a handler registered there still wins.
    override func setUpWithError() throws {
        try super.setUpWithError()
        if name.contains("testAHandlerFromSetUpWithErrorWins") {
            register("https://api.example.com/flags") { _ in .json(#"{"beta": "from setUpWithError"}"#) }
        }
    }

    func testEveryTestStartsWithTheDefaults() async throws {
        let flags = try await send(session, "GET", "https://api.example.com/flags")
        let missing = try await send(session, "GET", "https://api.example.com/v1/users/7")
        XCTAssertEqual(flags.text, #"{"beta": false}"#)
        XCTAssertEqual(missing.status, 404)
    }

    func testATestsOwnHandlerWinsForItsRequest() async throws {
        register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }
        let flags = try await send(session, "GET", "https://api.example.com/flags")
        let missing = try await send(session, "GET", "https://api.example.com/v1/users/7")
        XCTAssertEqual(flags.text, #"{"beta": true}"#)
        XCTAssertEqual(missing.status, 404, "the other defaults stay")
    }

    func testAHandlerFromSetUpWithErrorWins() async throws {
        let flags = try await send(session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(flags.text, #"{"beta": "from setUpWithError"}"#)
    }
}

/// Defaults that throw: the test fails, saying which class's defaults threw and what.
final class ThrowingDefaultsTestCaseTests: FailureCapturingTestCase {
    struct Missing: Error, CustomStringConvertible {
        var description: String { "the fixture flags.json is missing" }
    }

    override func registerDefaults(in mocks: MockRegistry) throws {
        mocks.register("https://api.example.com/before") { _ in .text("registered before the throw") }
        throw Missing()
    }

    override func setUp() {
        capturing = true
        super.setUp()
        capturing = false
    }

    func testTheThrowIsAFailureOfTheTestAndTheDefaultsBeforeItStay() async throws {
        XCTAssertEqual(
            captured,
            [
                "MockNetwork: registerDefaults(in:) of ThrowingDefaultsTestCaseTests threw the fixture flags.json is "
                    + "missing. The test runs with the defaults registered before that; fix what threw there."
            ])
        let reply = try await send(session, "GET", "https://api.example.com/before")
        XCTAssertEqual(reply.text, "registered before the throw")
    }
}
