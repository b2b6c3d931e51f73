import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `register(_:answer:)`: the same answer every time, with no closure, so no handler's thread.
final class ConstantAnswerTests: XCTestCase {
    /// Counts the handlers it is given to run, and runs them on a global queue.
    private final class CountingRunner: HandlerRunner {
        let submitted = Shared(0)

        func submit(_ work: @escaping @Sendable () -> Void) {
            submitted.update { $0 += 1 }
            DispatchQueue.global().async(execute: work)
        }

        func submit(
            _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void
        ) {
            submitted.update { $0 += 1 }
            started(Task { await work() })
        }
    }

    func testAConstantAnswerRepeatsWithoutAHandlersThread() async throws {
        let mocks = MockRegistry()
        let runner = CountingRunner()
        mocks.handlerRunner = runner
        let route = mocks.register(
            "https://api.example.com/flags", method: "GET", answer: .json(#"{"beta": true}"#))
        mocks.register("https://api.example.com/user") { _ in .text("Ada") }
        for _ in 0..<3 {
            let reply = try await send(mocks.session, "GET", "https://api.example.com/flags")
            XCTAssertEqual(reply.status, 200)
            XCTAssertEqual(reply.text, #"{"beta": true}"#)
            XCTAssertEqual(reply.response.value(forHTTPHeaderField: "Content-Type"), "application/json")
        }
        XCTAssertEqual(route.callCount, 3)
        XCTAssertEqual(runner.submitted.current, 0, "a constant answer ran on a handler's thread")
        _ = try await send(mocks.session, "GET", "https://api.example.com/user")
        XCTAssertEqual(runner.submitted.current, 1)
        // Another method is not this route's: unmatched, as for a handler.
        do {
            _ = try await send(mocks.session, "POST", "https://api.example.com/flags")
            XCTFail("a POST was answered by a GET's constant answer")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .resourceUnavailable)
        }
        XCTAssertEqual(mocks.takeFailures().count, 1)
    }

    func testExpectedCallsAndRequestMatchesWorkAsForHandlers() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com", path: "/v1/*"), expectedCalls: 2, answer: .status(204))
        for path in ["a", "b"] {
            let reply = try await send(mocks.session, "GET", "https://api.example.com/v1/\(path)")
            XCTAssertEqual(reply.status, 204)
        }
        XCTAssertEqual(mocks.requests.map(\.url.path), ["/v1/a", "/v1/b"])
        XCTAssertEqual(mocks.takeFailures(), [])
    }
}

final class ConstantAnswerBaseClassTests: MockNetworkTestCase {
    func testTheBaseClassRegistersAConstantAnswer() async throws {
        register("https://api.example.com/ping", answer: .text("pong"))
        register(.host("api.example.com", path: "/v2/*"), answer: .status(202))
        mocks.register(.url(try XCTUnwrap(URL(string: "https://api.example.com/url"))), answer: .text("by URL"))
        let reply = try await send(session, "GET", "https://api.example.com/ping")
        XCTAssertEqual(reply.text, "pong")
        let accepted = try await send(session, "GET", "https://api.example.com/v2/jobs")
        XCTAssertEqual(accepted.status, 202)
        let byURL = try await send(session, "GET", "https://api.example.com/url")
        XCTAssertEqual(byURL.text, "by URL")
    }
}
