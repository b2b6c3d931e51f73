import Foundation
import MockNetwork
import MockNetworkTesting
import Testing
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The "after" code of "Migrating from a hand-written URLProtocol", as the guide shows it.

// Guide: the first step, which keeps the tutorials' wiring
final class WiredProfileClientTests: MockNetworkTestCase {
    let wired: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        return URLSession(configuration: configuration)
    }()

    func testLoadsProfile() async throws {
        let me = URL(string: "https://api.example.com/v1/me")!
        MockURLProtocol.registry.register(.url(me)) { request in
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 200,
                httpVersion: nil, headerFields: nil)!
            return (response, Data(#"{"name": "Ada"}"#.utf8))
        }
        let profile = try await ProfileClient(session: wired).profile()
        XCTAssertEqual(profile.name, "Ada")
    }
}
// (end of snippet)

// Guide: after, with XCTest
final class ProfileClientTests: MockNetworkTestCase {
    func testLoadsProfile() async throws {
        register("https://api.example.com/v1/me") { request in
            XCTAssertEqual(
                request.value(forHTTPHeaderField: "Authorization"),
                "Bearer t")
            return .json(#"{"name": "Ada"}"#)
        }
        let profile = try await ProfileClient(session: session).profile()
        XCTAssertEqual(profile.name, "Ada")
    }

    func testReportsAServerError() async throws {
        register("https://api.example.com/v1/me") { _ in .status(500) }
        do {
            _ = try await ProfileClient(session: session).profile()
            XCTFail("expected the client to throw")
        } catch {
            XCTAssertEqual(error as? ClientError, .status(500))
        }
    }
}
// (end of snippet)

extension ProfileClientTests {
    /// The guide's answers for the other two styles: a table by URL, one stub for everything.
    func testTheOtherStylesAnswers() async throws {
        // Guide: a table of answers by URL, after
        register("https://api.example.com/v1/me") { _ in
            .json(#"{"name": "Ada"}"#)
        }
        register("https://api.example.com/v1/me/avatar") { _ in
            .failure(.notConnectedToInternet)
        }
        // (end of snippet)

        let profile = try await ProfileClient(session: session).profile()
        XCTAssertEqual(profile.name, "Ada")
        let avatar = try url("https://api.example.com/v1/me/avatar")
        let error = await thrownError { try await self.session.data(from: avatar) }
        XCTAssertEqual((error as? URLError)?.code, .notConnectedToInternet)
    }

    func testOneStubForEveryRequestToAHost() async throws {
        // Guide: one stubbed answer for every request, after
        register(.host("api.example.com")) { _ in
            .json(#"{"name": "Ada"}"#)
        }
        // (end of snippet)

        let profile = try await ProfileClient(session: session).profile()
        let other = try await session.data(from: try url("https://api.example.com/v1/anything?page=2"))
        XCTAssertEqual(profile.name, "Ada")
        XCTAssertEqual(String(decoding: other.0, as: UTF8.self), #"{"name": "Ada"}"#)
    }
}

// Guide: after, with Swift Testing
@Suite(.mockNetwork)
struct ProfileClientSuite {
    @Test func loadsProfile() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/v1/me") { _ in
            .json(#"{"name": "Ada"}"#)
        }
        let client = ProfileClient(session: mocks.session)
        #expect(try await client.profile().name == "Ada")
    }
}
// (end of snippet)
