import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of TestingWithXCTest.md, as written there (ArticleSnippetTests checks them): they
// compile here, and run.

// TestingWithXCTest.md: Overview
final class LoginTests: MockNetworkTestCase {
    func testSendsCredentials() async throws {
        register(
            .url("https://api.example.com/login").method("POST")
                .jsonBody(#"{"user": "ada", "password": "secret"}"#),
            expectedCalls: 1
        ) { _ in .json(#"{"token": "t"}"#) }

        let client = LoginClient(session: session)
        let token = try await client.login(user: "ada", password: "secret")

        XCTAssertEqual(token, "t")
        let sent = mocks.requests.first
        XCTAssertEqual(sent?.header("Content-Type"), "application/json")
    }
}
// (end of snippet)

/// `DefaultsReadmeTests` has an `APITestCase` too, so the article's is in a namespace.
enum TestingWithXCTestSnippets {
    // TestingWithXCTest.md: Defaults every test starts with
    class APITestCase: MockNetworkTestCase {
        override func registerDefaults(in mocks: MockRegistry) throws {
            mocks.register("https://api.example.com/flags") { _ in
                .json(#"{"beta": false}"#)
            }
        }
    }
    // (end of snippet)
}

/// Tests of the article's base class: each starts with its defaults, and its own handler wins.
final class TestingWithXCTestDefaultsTests: TestingWithXCTestSnippets.APITestCase {
    func testEveryTestStartsWithTheDefaults() async throws {
        let reply = try await send(session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(reply.text, #"{"beta": false}"#)
    }

    func testATestsOwnHandlerWins() async throws {
        register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }
        let reply = try await send(session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(reply.text, #"{"beta": true}"#)
    }
}

/// A company's own base class for its tests, which the article's `MyTestCase` extends.
class MyCompanyTestCase: XCTestCase {}

// TestingWithXCTest.md: With a base class of your own
class MyTestCase: MyCompanyTestCase {
    var mocks = MockRegistry()
    // swift-format-ignore: DoNotUseSemicolons
    override func setUp() { super.setUp(); mocks = MockRegistry() }
    // swift-format-ignore: DoNotUseSemicolons
    override func tearDown() { mocks.verify(); super.tearDown() }
}

extension MyTestCase: MockRegistering {
    var mockRegistry: MockRegistry { mocks }
}
// (end of snippet)

/// Tests on the article's own base class: `register` goes to the registry `setUp()` made anew.
final class MyTestCaseSnippetTests: MyTestCase {
    func testRegisterAnswersThroughTheRegistryOfThisTest() async throws {
        XCTAssertEqual(mocks.registered, [])
        register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
        let reply = try await send(mocks.session, "GET", "https://api.example.com/user")
        XCTAssertEqual(reply.text, #"{"name": "Ada"}"#)
        XCTAssertEqual(mocks.requests.count, 1)
    }

    func testEachTestHasARegistryOfItsOwn() async throws {
        XCTAssertEqual(mocks.registered, [])
        XCTAssertEqual(mocks.requests.count, 0)
    }
}
