import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkApp
#endif

/// `MockRegistry.stubs(_:variant:in:unmatched:)`, against bundles made in temporary directories.
final class AppStubsTests: XCTestCase {
    private let breedsURL = "https://api.example.com/breeds"
    private let userURL = "https://api.example.com/user?id=7"
    private let notesURL = "https://api.example.com/notes"

    private var routes: [String: String] {
        [breedsURL: "breeds", userURL: "user.json", notesURL: "notes.txt"]
    }

    private func bundle() throws -> Bundle {
        try temporaryBundle(
            self,
            files: [
                "Fixtures/standard/breeds.json": #"[{"name":"Abyssinian"},{"name":"Bengal"}]"#,
                "Fixtures/standard/user.json": #"{"id":7}"#,
                "Fixtures/standard/notes.txt": "standard notes",
                "Fixtures/empty/breeds.json": "[]",
                "Fixtures/empty/user.json": "{}",
                "Fixtures/empty/notes.txt": "",
                "broken/breeds.json": "{not json",
            ])
    }

    func testEachURLIsAnsweredWithTheFileOfTheVariant() async throws {
        let bundle = try bundle()
        let standard = MockRegistry.stubs(routes, variant: "standard", in: bundle)
        let empty = MockRegistry.stubs(routes, variant: "empty", in: bundle)

        let standardBreeds = try await send(standard.session, "GET", breedsURL)
        let emptyBreeds = try await send(empty.session, "GET", breedsURL)
        let standardUser = try await send(standard.session, "GET", userURL)
        XCTAssertEqual(standardBreeds.text, #"[{"name":"Abyssinian"},{"name":"Bengal"}]"#)
        XCTAssertEqual(emptyBreeds.text, "[]")
        XCTAssertEqual(standardUser.text, #"{"id":7}"#)
        XCTAssertEqual([standardBreeds.status, emptyBreeds.status, standardUser.status], [200, 200, 200])
        XCTAssertEqual(standardBreeds.response.value(forHTTPHeaderField: "Content-Type"), "application/json")

        let notes = try await send(standard.session, "GET", notesURL)
        XCTAssertEqual(notes.text, "standard notes")
        XCTAssertEqual(notes.response.value(forHTTPHeaderField: "Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(standard.registered, [breedsURL, notesURL, userURL])
        XCTAssertEqual(standard.failures, [])
    }

    func testVariantFolderMayAlsoSitAtTheTopOfTheBundle() async throws {
        let stubs = MockRegistry.stubs([breedsURL: "breeds"], variant: "broken", in: try bundle())
        let reply = try await send(stubs.session, "GET", breedsURL)
        XCTAssertEqual(reply.text, "{not json")
    }

    func testMissingFileFailsItsRequestNamingBundleVariantAndFile() async throws {
        let bundle = try bundle()
        let stubs = MockRegistry.stubs([breedsURL: "breeds", userURL: "user"], variant: "broken", in: bundle)

        let error = await thrownError { try await send(stubs.session, "GET", self.userURL) }
        assertMissingStub(error, .missingStub(name: "user", variant: "broken", bundle: bundle.bundleURL.path))
        XCTAssertEqual(
            stubs.failures.map(\.message),
            [
                "MockNetwork: no file \"user\" for the stub variant \"broken\" in the bundle at \(bundle.bundleURL.path) "
                    + "(looked for Fixtures/broken/user.json and broken/user.json). "
                    + "Add the file to that variant's folder, or point the URL at a file that exists."
            ])
        let other = try await send(stubs.session, "GET", breedsURL)
        XCTAssertEqual(other.text, "{not json", "the other URLs keep working")
    }

    func testUnknownVariantFailsEveryStubbedRequestClearly() async throws {
        let bundle = try bundle()
        let stubs = MockRegistry.stubs(routes, variant: "huge", in: bundle)
        let error = await thrownError { try await send(stubs.session, "GET", self.notesURL) }
        assertMissingStub(error, .missingStub(name: "notes.txt", variant: "huge", bundle: bundle.bundleURL.path))
        XCTAssertTrue(
            "\(error.map { "\($0)" } ?? "")".contains("(looked for Fixtures/huge/notes.txt and huge/notes.txt)"))
    }

    func testFilesAreReadOnEveryRequest() async throws {
        let bundle = try bundle()
        let stubs = MockRegistry.stubs([breedsURL: "breeds"], variant: "empty", in: bundle)
        let before = try await send(stubs.session, "GET", breedsURL)
        let file = try XCTUnwrap(bundle.resourceURL).appendingPathComponent("Fixtures/empty/breeds.json")
        try Data(#"[{"name":"Sphynx"}]"#.utf8).write(to: file)
        let after = try await send(stubs.session, "GET", breedsURL)
        XCTAssertEqual([before.text, after.text], ["[]", #"[{"name":"Sphynx"}]"#])
    }

    func testOtherURLsFailByDefaultOrMayGoToTheNetwork() async throws {
        let bundle = try bundle()
        let strict = MockRegistry.stubs(routes, variant: "standard", in: bundle)
        XCTAssertEqual(strict.unmatched, .fail)
        let error = await thrownError { try await send(strict.session, "GET", "https://api.example.com/other") }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(strict.failures.count, 1)

        let lenient = MockRegistry.stubs(routes, variant: "standard", in: bundle, unmatched: .passToNetwork)
        XCTAssertEqual(lenient.unmatched, .passToNetwork)
        let reply = try await send(lenient.session, "GET", breedsURL)
        XCTAssertEqual(reply.status, 200, "stubbed URLs are still answered from the files")
    }

    func testRouteThatIsNoURLIsAFailureAndTheRestWork() async throws {
        let stubs = MockRegistry.stubs(
            ["api/breeds": "breeds", breedsURL: "breeds"], variant: "empty", in: try bundle())
        XCTAssertEqual(stubs.registered, [breedsURL])
        XCTAssertEqual(stubs.failures.count, 1)
        XCTAssertTrue(
            stubs.failures.first?.message.hasPrefix("MockNetwork: register(\"api/breeds\") is not an absolute URL")
                ?? false)
        let reply = try await send(stubs.session, "GET", breedsURL)
        XCTAssertEqual(reply.text, "[]")
    }

    /// The error a request for a missing stub failed with: `expected`, or on Apple platforms the
    /// `NSError` URLSession rebuilds from it, with its domain and message.
    private func assertMissingStub(
        _ error: (any Error)?, _ expected: MockLaunchError, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let error else { return XCTFail("no error", file: file, line: line) }
        if let launchError = error as? MockLaunchError {
            XCTAssertEqual(launchError, expected, file: file, line: line)
        }
        let bridged = error as NSError
        XCTAssertEqual(bridged.domain, MockLaunchError.errorDomain, file: file, line: line)
        XCTAssertEqual(bridged.localizedDescription, expected.description, file: file, line: line)
    }
}
