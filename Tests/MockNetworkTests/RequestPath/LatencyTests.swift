import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class LatencyTests: XCTestCase {
    private let slow = "https://api.example.com/slow"
    private let fast = "https://api.example.com/fast"

    func testDelayedResponseArrivesAfterItsDelay() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("late").delayed(by: 0.3) }

        let start = Date()
        let reply = try await send(mocks.session, "GET", slow)
        let elapsed = seconds(since: start)
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.text, "late")
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 5)
    }

    func testDelayedFailureArrivesAfterItsDelay() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.failure(.notConnectedToInternet).delayed(by: 0.2) }

        let start = Date()
        let error = await thrownError { try await send(mocks.session, "GET", self.slow) }
        XCTAssertEqual((error as? URLError)?.code, .notConnectedToInternet)
        XCTAssertGreaterThanOrEqual(seconds(since: start), 0.19)
    }

    func testDelayLongerThanTheRequestTimeoutEndsWithTimedOutAtTheTimeout() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("too late").delayed(by: 30) }
        var request = URLRequest(url: try url(slow))
        request.timeoutInterval = 0.5

        let start = Date()
        let error = await thrownError { try await mocks.session.data(for: request) }
        let elapsed = seconds(since: start)
        XCTAssertTimedOut(
            error, message: "MockNetwork: the response's delay of 30 s is longer than the request's timeout of 0.5 s."
        )
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 10, "ends at the timeout, not after the delay")
        XCTAssertEqual(mocks.failures, [], "a timeout is an answer the test asked for, not a failure")
    }

    func testSessionTimeoutIntervalForRequestIsHonoured() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("too late").delayed(by: 30) }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForRequest = 0.5
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        let start = Date()
        let error = await thrownError { try await session.data(from: try url(self.slow)) }
        let elapsed = seconds(since: start)
        XCTAssertTimedOut(
            error, message: "MockNetwork: the response's delay of 30 s is longer than the request's timeout of 0.5 s."
        )
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 10)
    }

    func testRequestTimeoutSetOnTheRequestWinsOverTheSessions() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("in time").delayed(by: 0.6) }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForRequest = 0.2
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: try url(slow))
        request.timeoutInterval = 5

        let (data, _) = try await session.data(for: request)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "in time")
    }

    func testSessionTimeoutIntervalForResourceCapsEveryDelay() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("too late").delayed(by: 30) }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForResource = 0.4
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: try url(slow))
        request.timeoutInterval = 20

        let start = Date()
        let error = await thrownError { try await session.data(for: request) }
        XCTAssertEqual((error as? URLError)?.code, .timedOut)
        XCTAssertLessThan(seconds(since: start), 10)
    }

    func testDelayShorterThanTheTimeoutIsAnsweredNormally() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.json("[]").delayed(by: 0.2) }
        var request = URLRequest(url: try url(slow))
        request.timeoutInterval = 3

        let (data, response) = try await mocks.session.data(for: request)
        XCTAssertEqual(try status(response), 200)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "[]")
    }

    func testDelayDoesNotHoldUpAnUndelayedRequestOnTheSameSession() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("slow").delayed(by: 1) }
        mocks.register(.url(fast)) { _ in .text("fast") }
        let finished = Shared<[String]>([])

        let start = Date()
        let slow = self.slow
        let slowTask = Task {
            let reply = try await send(mocks.session, "GET", slow)
            finished.update { $0.append(reply.text) }
        }
        // The slow request has reached the protocol (and is waiting) before the fast one starts.
        while mocks.requests.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        let reply = try await send(mocks.session, "GET", fast)
        finished.update { $0.append(reply.text) }
        let fastElapsed = seconds(since: start)
        try await slowTask.value

        XCTAssertEqual(finished.current, ["fast", "slow"])
        XCTAssertLessThan(fastElapsed, 0.8, "the fast request did not wait for the slow one")
        XCTAssertGreaterThanOrEqual(seconds(since: start), 0.99)
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [slow, fast])
    }

    func testManyDelayedRequestsWaitAtTheSameTime() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/item", query: .ignored)) { request in
            MockResponse.text(request.url?.query ?? "").delayed(by: 0.5)
        }

        let start = Date()
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<20 {
                group.addTask { try await send(mocks.session, "GET", "https://api.example.com/item?n=\(index)").text }
            }
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            return bodies
        }
        XCTAssertEqual(Set(bodies), Set((0..<20).map { "n=\($0)" }))
        XCTAssertLessThan(seconds(since: start), 4, "20 delays of 0.5 s overlap instead of adding up to 10 s")
    }

    func testRequestStillWaitingWhenTheTestEndsIsReported() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(slow)) { _ in MockResponse.text("never").delayed(by: 30) }

        let slow = self.slow
        let waiting = Task { try await send(mocks.session, "GET", slow) }
        var atEnd: [MockFailure] = []
        for _ in 0..<5000 where atEnd.isEmpty {
            atEnd = mocks.endOfTestFailures()
            if atEnd.isEmpty { try await Task.sleep(nanoseconds: 1_000_000) }
        }
        XCTAssertEqual(
            atEnd.map(\.message),
            [
                "MockNetwork: 1 request was still in flight when the test ended: GET \(slow). Await every request "
                    + "(or cancel it) before the test returns; delayed responses and bodies still arriving keep a request open."
            ])

        waiting.cancel()
        let error = await thrownError { try await waiting.value }
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
        XCTAssertEqual(mocks.endOfTestFailures(), [], "a cancelled request is no longer in flight")
    }
}
