import Foundation
import MockNetwork
import MockNetworkApp
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of AppStubs.md, an app's code at launch, as written there (ArticleSnippetTests checks
// it), inside a test: it compiles here, and runs.

/// The app's client: the list of breeds.
private struct CatBreedsClient {
    let session: URLSession

    func breeds() async throws -> [String] {
        let (data, _) = try await session.data(from: URL(string: "https://api.example.com/breeds.json")!)
        return try JSONDecoder().decode([String].self, from: data)
    }
}

final class AppStubsSnippetTests: XCTestCase {
    /// The app's stubs read their files from the main bundle, which for this test runner has no
    /// `Fixtures` folder: the request fails naming the stub, the variant and the bundle.
    func testTheAppsStubsAnswerFromTheVariantsFolderOfTheMainBundle() async throws {
        // AppStubs.md: Overview
        #if DEBUG
            let environment = ProcessInfo.processInfo.environment
            let variant = environment["STUB_VARIANT"] ?? "standard"
            let stubs = MockRegistry.stubs(
                ["https://api.example.com/breeds.json": "breeds"],
                variant: variant, in: .main)
            let client = CatBreedsClient(session: stubs.session)
        #endif
        // (end of snippet)

        #if DEBUG
            XCTAssertEqual(stubs.registered, ["https://api.example.com/breeds.json"])
            let expected = MockLaunchError.missingStub(
                name: "breeds", variant: variant, bundle: Bundle.main.bundleURL.path)
            do {
                let breeds = try await client.breeds()
                XCTFail("answered without a file: \(breeds)")
            } catch let error as MockLaunchError {
                XCTAssertEqual(error, expected)
            } catch {
                // Apple's URLSession hands over an `NSError` made from the handler's error.
                XCTAssertEqual((error as NSError).domain, MockLaunchError.errorDomain)
                XCTAssertEqual(error.localizedDescription, expected.description)
            }
            XCTAssertEqual(stubs.requests.count, 1)
        #endif
    }
}
