import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `MockResponse.fixture(_:in:)` with the test target's own `Bundle.module`
/// (`resources: [.copy("Fixtures")]` on the MockNetworkTests target).
final class BundleModuleFixtureTests: XCTestCase {
    func testFixtureWithoutExtensionIsFoundInTheFixturesFolderOfBundleModule() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in .fixture("user", in: .module) }
        mocks.register("https://api.example.com/breeds") { _ in .fixture("breeds.json", in: .module) }

        let (user, userResponse) = try await mocks.session.data(from: try url("https://api.example.com/user"))
        let (breeds, _) = try await mocks.session.data(from: try url("https://api.example.com/breeds"))
        XCTAssertEqual(String(decoding: user, as: UTF8.self), "{\"name\":\"Ada\",\"id\":1}\n")
        XCTAssertEqual(String(decoding: breeds, as: UTF8.self), "[{\"name\":\"Abyssinian\"},{\"name\":\"Bengal\"}]\n")
        XCTAssertEqual(
            (userResponse as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"), "application/json")
    }

    func testMissingFixtureInBundleModuleNamesTheBundlePath() {
        XCTAssertThrowsError(try MockResponse.fixture("no-such-file", in: .module).validated()) { error in
            XCTAssertEqual(
                MockNetworkError(error), .missingFixture(name: "no-such-file", bundle: Bundle.module.bundleURL.path))
        }
    }
}
