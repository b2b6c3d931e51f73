import Foundation
import MockNetwork
import MockNetworkTesting
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's snippets for defaults, as they are written there: they compile here, and run.

// README: Defaults every test starts with
class APITestCase: MockNetworkTestCase {
    override func registerDefaults(in mocks: MockRegistry) throws {
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        mocks.register(.host("api.example.com", path: "/v1/*")) { _ in .status(404) }
    }
}

final class BannerTests: APITestCase {
    func testBetaBanner() async throws {
        register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }  // this test only
        let (data, _) = try await session.data(from: URL(string: "https://api.example.com/flags")!)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"beta": true}"#)
    }
}
// (end of snippet)

// README: Defaults every test starts with (Swift Testing)
enum APIMocks {
    @Sendable static func defaults(_ mocks: MockRegistry) {
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
    }
}

@Suite(.mockNetwork(defaults: APIMocks.defaults))
struct BannerSuite {
    @Test func betaIsOffByDefault() async throws {
        let mocks = MockRegistry.current
        let (data, _) = try await mocks.session.data(from: URL(string: "https://api.example.com/flags")!)
        #expect(String(decoding: data, as: UTF8.self) == #"{"beta": false}"#)
    }
}
// (end of snippet)

/// The snippet's base class, for a test the README does not show: the other defaults stay.
final class BannerDefaultsTests: APITestCase {
    func testTheDefaultsAnswerWhatTheTestDoesNotRegister() async throws {
        let reply = try await send(session, "GET", "https://api.example.com/v1/anything")
        XCTAssertEqual(reply.status, 404)
    }

    /// A base class of one's own: `registerDefaults` where the registry is made.
    func testTheRegistryCallForABaseClassOfYourOwn() async throws {
        let mocks = MockRegistry()
        // README: Defaults every test starts with (a base class of your own)
        mocks.registerDefaults { mocks in
            mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        }
        // (end of snippet)
        let reply = try await send(mocks.session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(reply.text, #"{"beta": false}"#)
    }
}
