import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class SequenceTests: XCTestCase {
    private let status = "https://api.example.com/status"

    func testSequenceAnswersInOrderAndAFourthRequestFailsTheRequestAndTheTest() async throws {
        let mocks = MockRegistry()
        let registeredAt = #line + 1
        let route = mocks.register(
            .url(status), sequence: [.status(503), .status(503), .json(#"{"ok":true}"#)])

        var statuses: [Int] = []
        var bodies: [String] = []
        for _ in 0..<3 {
            let reply = try await send(mocks.session, "GET", status)
            statuses.append(reply.status)
            bodies.append(reply.text)
        }
        XCTAssertEqual(statuses, [503, 503, 200])
        XCTAssertEqual(bodies, ["", "", #"{"ok":true}"#])
        XCTAssertEqual(mocks.failures, [])

        let error = await thrownError { try await send(mocks.session, "GET", self.status) }
        XCTAssertEqual(error.flatMap(MockNetworkError.init), .sequenceExhausted(request: "GET \(status)", count: 3))
        let failure = try XCTUnwrap(mocks.failures.first)
        XCTAssertEqual(mocks.failures.count, 1)
        XCTAssertEqual(
            failure.message,
            "MockNetwork: GET \(status) was requested more often than its 3 registered responses. "
                + "Register more responses, or expect fewer requests.")
        XCTAssertEqual(failure.location?.line, registeredAt)
        XCTAssertEqual(failure.location?.fileID, "MockNetworkTests/SequenceTests.swift")
        // The request that found the sequence used up counts as a call: it was made.
        XCTAssertEqual(route.callCount, 4)
        XCTAssertEqual(mocks.requests.count, 4)
    }

    func testSequenceOfFailuresAndDelaysIsAnsweredInOrder() async throws {
        let mocks = MockRegistry()
        mocks.register(
            .url(status),
            sequence: [.failure(.networkConnectionLost), .failure(Teapot(reason: "busy")), .text("third")])

        let first = await thrownError { try await send(mocks.session, "GET", self.status) }
        let second = await thrownError { try await send(mocks.session, "GET", self.status) }
        let third = try await send(mocks.session, "GET", status)
        XCTAssertEqual((first as? URLError)?.code, .networkConnectionLost)
        XCTAssertTeapot(second, Teapot(reason: "busy"))
        XCTAssertEqual(third.text, "third")
    }

    func testEachSequenceKeepsItsOwnPlace() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(status).method("GET"), sequence: [.text("g1"), .text("g2")])
        mocks.register(.url(status).method("POST"), sequence: [.text("p1"), .text("p2")])

        var answers: [String] = []
        for method in ["GET", "POST", "POST", "GET"] {
            answers.append(try await send(mocks.session, method, status).text)
        }
        XCTAssertEqual(answers, ["g1", "p1", "p2", "g2"])
    }

    func testCallCountsPerHandlerAndPerURL() async throws {
        let mocks = MockRegistry()
        let get = mocks.register(.url(status), method: "GET") { _ in .status(200) }
        let post = mocks.register(.url(status), method: "POST") { _ in .status(201) }
        let search = mocks.register(.url("https://api.example.com/search?a=1&b=2", query: .anyOrder)) { _ in
            .status(200)
        }
        let pattern = mocks.register(.host("*.example.com", path: "/img/*")) { _ in .status(200) }
        let unused = mocks.register("https://api.example.com/unused") { _ in .status(200) }

        for method in ["GET", "GET", "POST", "GET"] { _ = try await send(mocks.session, method, status) }
        _ = try await send(mocks.session, "GET", "https://api.example.com/search?b=2&a=1")
        _ = try await send(mocks.session, "GET", "https://api.example.com/search?a=1&b=2")
        _ = try await send(mocks.session, "GET", "https://cdn.example.com/img/1.png")
        _ = try await send(mocks.session, "GET", "https://cdn.example.com/img/2.png")
        _ = try await send(mocks.session, "GET", "https://www.example.com/img/3.png")

        XCTAssertEqual(
            [get.callCount, post.callCount, search.callCount, pattern.callCount, unused.callCount], [3, 1, 2, 3, 0])
        XCTAssertEqual(mocks.callCount(for: status), 4, "both methods' handlers for the URL")
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/search?a=1&b=2"), 2, "the URL as registered")
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/search?b=2&a=1"), 0, "not the URL as registered")
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/unused"), 0)
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/never-registered"), 0)
    }

    func testReplacedOrInvalidRegistrationsCountNothing() async throws {
        let mocks = MockRegistry()
        let first = mocks.register(.url(status)) { _ in .text("first") }
        let second = mocks.register(.url(status)) { _ in .text("second") }
        let invalid = mocks.register("not a url") { _ in .status(200) }
        _ = try await send(mocks.session, "GET", status)

        XCTAssertEqual([first.callCount, second.callCount, invalid.callCount], [0, 1, 0])
        XCTAssertEqual(mocks.failures.count, 1, "the invalid registration")
    }

    func testExpectedCallsAddsNothingToFailuresAndIsReportedAtTheEndOfTheTest() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(status), method: "GET", expectedCalls: 2) { _ in .status(200) }
        let getLine = #line - 1
        mocks.register("https://api.example.com/once", expectedCalls: 1) { _ in .status(200) }
        let onceLine = #line - 1
        mocks.register(.url("https://api.example.com/met"), expectedCalls: 1) { _ in .status(200) }
        mocks.register(.url("https://api.example.com/retry"), expectedCalls: 2, sequence: [.status(503)])

        _ = try await send(mocks.session, "GET", status)
        _ = try await send(mocks.session, "GET", "https://api.example.com/met")
        XCTAssertEqual(mocks.failures, [], "expectedCalls is checked at the end of the test, not before")

        let atEnd = mocks.endOfTestFailures()
        XCTAssertEqual(
            atEnd.map(\.message),
            [
                "MockNetwork: expected 2 calls to GET \(status), got 1. "
                    + "Check what the code under test requests, or change expectedCalls.",
                "MockNetwork: expected 1 call to https://api.example.com/once, got 0. "
                    + "Check what the code under test requests, or change expectedCalls.",
                "MockNetwork: expected 2 calls to https://api.example.com/retry, got 0. "
                    + "Check what the code under test requests, or change expectedCalls.",
            ])
        XCTAssertEqual(atEnd.map { $0.location?.line }, [getLine, onceLine, getLine + 5])
        XCTAssertEqual(mocks.endOfTestFailures(), [], "each expectation is reported once")
        XCTAssertEqual(mocks.failures, [], "end-of-test failures stay out of failures")
    }

    func testExpectedCallsMetOrExceededByASequence() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(status), expectedCalls: 2, sequence: [.status(503), .status(200)])
        _ = try await send(mocks.session, "GET", status)
        _ = try await send(mocks.session, "GET", status)
        XCTAssertEqual(mocks.endOfTestFailures(), [])

        let exceeded = MockRegistry()
        exceeded.register(.url(status), expectedCalls: 1, sequence: [.status(200)])
        _ = try await send(exceeded.session, "GET", status)
        _ = await thrownError { try await send(exceeded.session, "GET", self.status) }
        XCTAssertEqual(exceeded.failures.count, 1, "the request past the sequence")
        XCTAssertEqual(
            exceeded.endOfTestFailures().map(\.message),
            [
                "MockNetwork: expected 1 call to \(status), got 2. "
                    + "Check what the code under test requests, or change expectedCalls."
            ])
    }
}
