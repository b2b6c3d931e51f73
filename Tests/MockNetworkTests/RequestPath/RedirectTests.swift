import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class RedirectTests: XCTestCase {
    private let old = "https://api.example.com/old"
    private let new = "https://api.example.com/new"

    /// What the handler of the final URL saw.
    private struct Seen: Equatable {
        var method: String?
        var body: String?
        var contentType: String?
    }

    /// A registry where `old` redirects to `new` with `status`, and `new` echoes what it saw.
    private func redirecting(status: Int) -> (MockRegistry, Shared<[Seen]>) {
        let mocks = MockRegistry()
        let seen = Shared<[Seen]>([])
        let new = self.new
        mocks.register(.url(old)) { _ in .redirect(to: new, status: status) }
        mocks.register(.url(new)) { request in
            seen.update {
                $0.append(
                    Seen(
                        method: request.httpMethod, body: request.httpBody.map { String(decoding: $0, as: UTF8.self) },
                        contentType: request.value(forHTTPHeaderField: "Content-Type")))
            }
            return .text("arrived")
        }
        return (mocks, seen)
    }

    func testEveryRedirectStatusEndsWithTheFinalResponseAndItsURL() async throws {
        for code in [301, 302, 303, 307, 308] {
            let (mocks, _) = redirecting(status: code)
            let reply = try await send(mocks.session, "GET", old)
            XCTAssertEqual(reply.status, 200, "\(code)")
            XCTAssertEqual(reply.text, "arrived", "\(code)")
            XCTAssertEqual(reply.response.url?.absoluteString, new, "\(code)")
            XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [old, new], "\(code)")
            XCTAssertEqual(mocks.requests.map(\.method), ["GET", "GET"], "\(code)")
            XCTAssertEqual(mocks.failures, [], "\(code)")
        }
    }

    func testPOSTBecomesGETWithoutBodyFor301And302And303AndStaysFor307And308() async throws {
        let body = #"{"name":"Rex"}"#
        var outcomes: [Int: Seen] = [:]
        for code in [301, 302, 303, 307, 308] {
            let (mocks, seen) = redirecting(status: code)
            let reply = try await send(
                mocks.session, "POST", old, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            XCTAssertEqual(reply.status, 200)
            outcomes[code] = try XCTUnwrap(seen.current.first)
            XCTAssertEqual(seen.current.count, 1)
            // The log holds both hops, each as it was sent.
            let log = mocks.requests
            XCTAssertEqual(log.map(\.method), ["POST", outcomes[code]?.method ?? "?"], "\(code)")
            XCTAssertEqual(log.first?.bodyText, body, "\(code)")
            XCTAssertEqual(log.last?.bodyText, outcomes[code]?.body ?? "", "\(code)")
        }
        // As Foundation's own HTTP protocol does (the parity suite shows it): the body goes, the headers stay.
        let rewritten = Seen(method: "GET", body: nil, contentType: "application/json")
        let kept = Seen(method: "POST", body: body, contentType: "application/json")
        XCTAssertEqual(outcomes[301], rewritten)
        XCTAssertEqual(outcomes[302], rewritten)
        XCTAssertEqual(outcomes[303], rewritten)
        XCTAssertEqual(outcomes[307], kept)
        XCTAssertEqual(outcomes[308], kept)
    }

    func testOtherMethodsAreRewrittenOnlyBy303() async throws {
        var methods: [Int: String] = [:]
        for code in [301, 302, 303, 307] {
            let (mocks, seen) = redirecting(status: code)
            _ = try await send(mocks.session, "PUT", old, body: Data("v=1".utf8))
            methods[code] = seen.current.first?.method ?? "none"
        }
        XCTAssertEqual(methods, [301: "PUT", 302: "PUT", 303: "GET", 307: "PUT"])
    }

    func testRelativeLocationIsResolvedAgainstTheRedirectingURL() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/items") { _ in .redirect(to: "/v2/items?page=1", status: 308) }
        mocks.register("https://api.example.com/v2/items?page=1") { _ in .json("[]") }

        let reply = try await send(mocks.session, "GET", "https://api.example.com/v1/items")
        XCTAssertEqual(reply.text, "[]")
        XCTAssertEqual(reply.response.url?.absoluteString, "https://api.example.com/v2/items?page=1")
    }

    func testTutorialShapedRaw302WithLocationIsFollowed() async throws {
        let mocks = MockRegistry()
        let new = self.new
        mocks.register(.url(old)) { request in
            let response = try XCTUnwrap(
                HTTPURLResponse(
                    url: try XCTUnwrap(request.url), statusCode: 302, httpVersion: "HTTP/1.1",
                    headerFields: ["Location": new]))
            return (response, Data())
        }
        mocks.register(.url(new)) { request in
            (
                try XCTUnwrap(
                    HTTPURLResponse(
                        url: try XCTUnwrap(request.url), statusCode: 200, httpVersion: nil, headerFields: nil)),
                Data("raw target".utf8)
            )
        }

        let reply = try await send(mocks.session, "GET", old)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.text, "raw target")
        XCTAssertEqual(reply.response.url?.absoluteString, new)
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [old, new])
    }

    func testChainOfRedirectsRewritesEachHopByItsOwnStatus() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/a") { _ in .redirect(to: "https://api.example.com/b", status: 307) }
        mocks.register("https://api.example.com/b") { _ in .redirect(to: "https://cdn.example.com/c", status: 303) }
        mocks.register("https://cdn.example.com/c") { _ in .text("c") }

        let reply = try await send(mocks.session, "POST", "https://api.example.com/a", body: Data("x".utf8))
        XCTAssertEqual(reply.text, "c")
        XCTAssertEqual(reply.response.url?.absoluteString, "https://cdn.example.com/c")
        XCTAssertEqual(mocks.requests.map(\.method), ["POST", "POST", "GET"])
        XCTAssertEqual(mocks.requests.map(\.body), [Data("x".utf8), Data("x".utf8), Data()])
    }

    func testRedirectLoopEndsWithTooManyRedirects() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/ping") { _ in .redirect(to: "https://api.example.com/pong") }
        mocks.register("https://api.example.com/pong") { _ in .redirect(to: "https://api.example.com/ping") }

        let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/ping") }
        let urlError = try XCTUnwrap(error as? URLError)
        XCTAssertEqual(urlError.code, .httpTooManyRedirects)
        XCTAssertEqual(mocks.requests.count, 17, "the request and 16 redirects followed")
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/ping"), 9)
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/pong"), 8)
        XCTAssertTrue(
            urlError.localizedDescription.hasPrefix("MockNetwork: more than 16 redirects"),
            urlError.localizedDescription)
    }

    func testRedirectToAnUnregisteredURLFailsAsUnmatched() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(old)) { _ in .redirect(to: "https://api.example.com/gone", status: 301) }

        let error = await thrownError { try await send(mocks.session, "GET", self.old) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(mocks.failures.count, 1)
        XCTAssertTrue(
            mocks.failures.first?.message.hasPrefix("MockNetwork: no handler for GET https://api.example.com/gone.")
                ?? false,
            mocks.failures.first?.message ?? "")
    }

    func testFollowingRedirectsFalseReturnsThe3xxAsItIs() async throws {
        let mocks = MockRegistry()
        let new = self.new
        mocks.register(.url(old)) { _ in MockResponse.redirect(to: new, status: 302).followingRedirects(false) }
        mocks.register(.url(new)) { _ in .text("should not be reached") }

        let reply = try await send(mocks.session, "GET", old)
        XCTAssertEqual(reply.status, 302)
        XCTAssertEqual(reply.response.value(forHTTPHeaderField: "Location"), new)
        XCTAssertEqual(reply.response.url?.absoluteString, old)
        XCTAssertEqual(reply.body, Data())
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [old])
    }

    func testRedirectWithAnInvalidStatusIsRefused() {
        XCTAssertThrowsError(try MockResponse.redirect(to: new, status: 200).validated()) { error in
            XCTAssertEqual(MockNetworkError(error), .invalidRedirectStatus(200))
            XCTAssertEqual("\(error)", "MockNetwork: 200 is not a redirect status. Use 301, 302, 303, 307 or 308.")
        }
    }
}
