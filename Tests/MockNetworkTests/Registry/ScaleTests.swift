import Foundation
import XCTest

@testable import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Registration, removal and the request log stay correct at scale (their speed is the benchmark's).
final class ScaleTests: XCTestCase {
    func testRequestLogNeverHoldsMoreThanItsLimit() throws {
        var log = RequestLog(limit: 10)
        var numbers: [Int] = []
        for index in 0..<25 {
            let request = RecordedRequest(URLRequest(url: try url("https://api.example.com/\(index)")), body: Data())
            numbers.append(log.append(request))
            XCTAssertLessThanOrEqual(log.all.count, 10)
        }
        XCTAssertEqual(numbers, Array(0..<25))
        XCTAssertEqual(log.all.map(\.url.path), (15..<25).map { "/\($0)" })
        log.update(20) { $0.outcome = .failure("twenty") }
        log.update(3) { $0.outcome = .failure("dropped long ago") }
        XCTAssertEqual(log.all.compactMap { if case .failure(let text) = $0.outcome { text } else { nil } }, ["twenty"])
    }

    func testRegistryLogKeepsTheLatestRequests() async throws {
        let mocks = MockRegistry(requestLogLimit: 3)
        mocks.register(.host("api.example.com", path: "/items/*")) { _ in .status(204) }
        for index in 0..<7 {
            _ = try await send(mocks.session, "GET", "https://api.example.com/items/\(index)")
        }
        XCTAssertEqual(mocks.requests.map(\.url.path), ["/items/4", "/items/5", "/items/6"])
    }

    func testRemoveTakesOnlyThatURLsHandlersAmongThousands() async throws {
        let mocks = MockRegistry()
        for index in 0..<2_000 {
            mocks.register("https://api.example.com/items/\(index)") { _ in .text("\(index)") }
        }
        mocks.register(RequestMatch.url("https://api.example.com/items/7", query: .anyOrder)) { _ in .text("loose")
        }
        mocks.register("https://api.example.com/items/7", method: "POST") { _ in .text("post") }
        mocks.remove("https://api.example.com/items/7")
        XCTAssertEqual(mocks.registered.count, 1_999)
        XCTAssertFalse(mocks.registered.contains { $0.hasSuffix("/items/7") })
        let eight = try await send(mocks.session, "GET", "https://api.example.com/items/8")
        XCTAssertEqual(eight.text, "8")
        let error = await thrownError { try await send(mocks.session, "GET", "https://api.example.com/items/7") }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        _ = mocks.takeFailures()
        // Registered again after the removal, it answers.
        mocks.register("https://api.example.com/items/7") { _ in .text("back") }
        let seven = try await send(mocks.session, "GET", "https://api.example.com/items/7")
        XCTAssertEqual(seven.text, "back")
    }

    func testAPatternRegisteredAgainReplacesTheEarlierOneAmongThousands() async throws {
        let mocks = MockRegistry()
        for index in 0..<2_000 {
            mocks.register(.host("host\(index).example.com", path: "/v1/*")) { _ in .text("\(index)") }
        }
        mocks.register(.host("host5.example.com", path: "/v1/*")) { _ in .text("replaced") }
        XCTAssertEqual(mocks.registered.count, 2_000)
        let five = try await send(mocks.session, "GET", "https://host5.example.com/v1/x")
        XCTAssertEqual(five.text, "replaced")
        let six = try await send(mocks.session, "GET", "https://host6.example.com/v1/x")
        XCTAssertEqual(six.text, "6")
    }

    func testPatternsFiledByHostStillRankAsBefore() async throws {
        let mocks = MockRegistry()
        // Among equally specific patterns the latest wins: the wildcard first, so each host's own wins.
        mocks.register(.host("*.example.com", path: "/v1/*")) { _ in .text("wildcard") }
        for index in 0..<500 {
            mocks.register(.host("svc\(index).example.com", path: "/v1/*")) { _ in .text("svc\(index)") }
        }
        mocks.register(.host("svc3.example.com", path: "/v1/*").method("POST")) { _ in .text("svc3 POST") }
        mocks.register("https://svc4.example.com/v1/exact") { _ in .text("exact") }
        let checks: [(String, String, String)] = [
            ("GET", "https://svc3.example.com/v1/a", "svc3"),
            ("POST", "https://svc3.example.com/v1/a", "svc3 POST"),
            ("GET", "https://other.example.com/v1/a", "wildcard"),
            ("GET", "https://SVC7.example.com/v1/a", "svc7"),
            ("GET", "https://svc4.example.com/v1/exact", "exact"),
            ("GET", "https://svc4.example.com/v1/other", "svc4"),
        ]
        for (method, address, expected) in checks {
            let reply = try await send(mocks.session, method, address)
            XCTAssertEqual(reply.text, expected, "\(method) \(address)")
        }
    }
}
