import Foundation
import XCTest

@testable import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// On Apple platforms each redirect Foundation follows is loaded by a new protocol instance. The
/// chain's count travels with the new request (a `RedirectTrail`), so the redirect limit and its
/// message hold for the whole chain there too. These tests follow a chain the way Apple's URL
/// loading does: every hop starts a new chain from the request it was handed.
final class RedirectTrailTests: XCTestCase {
    private struct EndlessChain: Error, CustomStringConvertible {
        var description: String { "the chain did not end within 40 loads: the redirect limit never applied" }
    }

    private func pingPong() -> MockRegistry {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/ping") { _ in .redirect(to: "https://api.example.com/pong") }
        mocks.register("https://api.example.com/pong") { _ in .redirect(to: "https://api.example.com/ping") }
        return mocks
    }

    /// Answers `url` and each redirect it leads to in a chain of its own, as a new protocol instance
    /// would, going on from the trail the previous hop left. Returns the last answer and how many
    /// instances loaded a request.
    private func followAsNewInstancesDo(_ mocks: MockRegistry, from url: String) throws -> (MockRegistry.Answer, Int) {
        var chain = MockRegistry.Chain(URLRequest(url: try XCTUnwrap(URL(string: url))), body: Data())
        for loads in 1...40 {
            let answer = try XCTUnwrap(mocks.core.answer(&chain))
            guard let next = answer.next else { return (answer, loads) }
            chain = MockRegistry.Chain(next.request, body: next.body, trail: next.trail)
        }
        throw EndlessChain()
    }

    func testEachHopCarriesTheCountAndTheFirstURL() throws {
        let mocks = pingPong()
        var chain = MockRegistry.Chain(
            URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/ping"))), body: Data())
        let first = try XCTUnwrap(mocks.core.answer(&chain)?.next)
        XCTAssertEqual(first.trail, RedirectTrail(hops: 1, firstURL: URL(string: "https://api.example.com/ping")))
        var second = MockRegistry.Chain(first.request, body: first.body, trail: first.trail)
        let next = try XCTUnwrap(mocks.core.answer(&second)?.next)
        XCTAssertEqual(next.request.url?.absoluteString, "https://api.example.com/ping")
        XCTAssertEqual(next.trail, RedirectTrail(hops: 2, firstURL: URL(string: "https://api.example.com/ping")))
    }

    func testALoopFollowedByNewInstancesEndsAtTheLimitNamingTheFirstURL() throws {
        let mocks = pingPong()
        let (answer, loads) = try followAsNewInstancesDo(mocks, from: "https://api.example.com/ping")
        XCTAssertEqual(loads, 18, "the request, 16 redirects followed, and the 17th refused")
        XCTAssertEqual(mocks.requests.count, 17)
        guard case .failure(let error) = answer.result else { return XCTFail("expected a failure: \(answer.result)") }
        let urlError = try XCTUnwrap(error as? URLError)
        XCTAssertEqual(urlError.code, .httpTooManyRedirects)
        XCTAssertEqual(
            urlError.localizedDescription,
            "MockNetwork: more than 16 redirects, starting at https://api.example.com/ping.")
    }

    func testARequestThatIsNoRedirectsStartsAtZero() throws {
        let chain = MockRegistry.Chain(
            URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/ping"))), body: Data(), trail: nil)
        XCTAssertEqual(chain.trail, RedirectTrail(hops: 0, firstURL: URL(string: "https://api.example.com/ping")))
    }

    #if !canImport(FoundationNetworking)
        // Apple platforms only: corelibs Foundation drops protocol properties when an `NSURLRequest`
        // becomes a `URLRequest`, and on Linux a chain never leaves its protocol instance.
        func testTheTrailSurvivesTheRequestAsProtocolProperties() throws {
            let request = URLRequest(url: try XCTUnwrap(URL(string: "https://api.example.com/pong")))
            let trail = RedirectTrail(hops: 5, firstURL: URL(string: "https://api.example.com/ping"))
            var carried = trail.attached(to: request)
            carried.setValue("1", forHTTPHeaderField: "X-Copied")  // a delegate may change the request
            XCTAssertEqual(RedirectTrail(of: carried), trail)
            XCTAssertNil(RedirectTrail(of: request))
            XCTAssertNil(carried.value(forHTTPHeaderField: "MockNetwork.redirectHops"), "no header for handlers")
        }
    #endif
}
