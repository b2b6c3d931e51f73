import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MockResponse.fixture(_:in:)`, against a bundle made in a temporary directory, laid out as
/// SwiftPM lays out a target's resources (`resources: [.copy("Fixtures")]` gives a `Fixtures` folder).
final class FixtureTests: XCTestCase {
    private let user = #"{"name":"Ada","id":1}"#
    private let breeds = #"[{"name":"Abyssinian"}]"#

    private func bundle() throws -> Bundle {
        try temporaryBundle(
            self,
            files: [
                "user.json": user,
                "Fixtures/breeds.json": breeds,
                "Fixtures/notes.txt": "plain notes",
                "Fixtures/nested/list.json": "[1,2]",
                "Fixtures/page.html": "<p>hi</p>",
            ])
    }

    private func text(_ response: MockResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    func testNameWithoutExtensionIsReadAsJSON() throws {
        let response = MockResponse.fixture("user", in: try bundle())
        XCTAssertEqual(text(response), user)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers, ["Content-Type": "application/json"])
    }

    func testFixtureIsFoundUnderAFixturesFolder() throws {
        let bundle = try bundle()
        XCTAssertEqual(text(.fixture("breeds", in: bundle)), breeds)
        XCTAssertEqual(text(.fixture("breeds.json", in: bundle)), breeds)
        XCTAssertEqual(text(.fixture("Fixtures/breeds.json", in: bundle)), breeds)
        XCTAssertEqual(text(.fixture("nested/list", in: bundle)), "[1,2]")
        XCTAssertEqual(text(.fixture("Fixtures/nested/list", in: bundle)), "[1,2]")
    }

    func testContentTypeFollowsTheExtensionUnlessGiven() throws {
        let bundle = try bundle()
        XCTAssertEqual(
            MockResponse.fixture("notes.txt", in: bundle).headers["Content-Type"], "text/plain; charset=utf-8")
        XCTAssertEqual(
            MockResponse.fixture("page.html", in: bundle).headers["Content-Type"], "text/html; charset=utf-8")
        let custom = MockResponse.fixture(
            "user", in: bundle, status: 201, headers: ["content-type": "application/vnd.api+json", "ETag": "\"v1\""])
        XCTAssertEqual(custom.status, 201)
        XCTAssertEqual(custom.headers, ["content-type": "application/vnd.api+json", "ETag": "\"v1\""])
    }

    func testMissingFixtureThrowsNamingTheBundleAndTheFile() throws {
        let bundle = try bundle()
        XCTAssertThrowsError(try MockResponse.fixture("missing", in: bundle).validated()) { error in
            XCTAssertEqual(MockNetworkError(error), .missingFixture(name: "missing", bundle: bundle.bundleURL.path))
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: no fixture \"missing\" in the bundle at \(bundle.bundleURL.path). Add the file to the "
                    + "target's resources (e.g. resources: [.copy(\"Fixtures\")]) and name it as it is in the bundle; "
                    + "without an extension, .json is assumed.")
        }
        XCTAssertThrowsError(try MockResponse.fixture("user.xml", in: bundle).validated()) { error in
            XCTAssertEqual(MockNetworkError(error), .missingFixture(name: "user.xml", bundle: bundle.bundleURL.path))
        }
    }

    func testFixtureServedByAHandlerAnswersTheRequest() async throws {
        let mocks = MockRegistry()
        let bundle = try bundle()
        mocks.register("https://api.example.com/breeds") { _ in .fixture("breeds", in: bundle) }

        let reply = try await send(mocks.session, "GET", "https://api.example.com/breeds")
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.text, breeds)
        XCTAssertEqual(reply.response.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testMissingFixtureInAHandlerFailsTheRequestAndTheTestAtTheRegistration() async throws {
        let mocks = MockRegistry()
        let bundle = try bundle()
        mocks.register("https://api.example.com/cats") { _ in .fixture("cats", in: bundle) }
        let registeredAt = #line - 1

        let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/cats") }
        XCTAssertEqual(
            error.flatMap(MockNetworkError.init), .missingFixture(name: "cats", bundle: bundle.bundleURL.path))
        XCTAssertEqual(mocks.failures.count, 1)
        XCTAssertEqual(mocks.failures.first?.location?.line, registeredAt)
        XCTAssertTrue(
            mocks.failures.first?.message.hasPrefix(
                "MockNetwork: no fixture \"cats\" in the bundle at \(bundle.bundleURL.path).")
                ?? false)
    }
}
