import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The request path never crashes, stalls, hangs or escapes to the network, whatever a handler does.
final class RequestPathTests: XCTestCase {
    private static let gateway = "https://gateway.example.com/profile"
    private static let backend = "https://backend.example.com/user"

    // MARK: Handlers that make requests

    func testHandlerWaitsForANestedRequestOnAnotherRegistry() async throws {
        let service = MockRegistry()
        service.register(.url(Self.backend)) { _ in .text("ada") }
        let serviceSession = service.session
        let mocks = MockRegistry()
        let backendURL = try url(Self.backend)
        mocks.register(.url(Self.gateway)) { _ in
            .text("profile of \(textWaitingOnThisThread(serviceSession, backendURL))")
        }
        let start = Date()
        let reply = try await withWatchdog(10) { try await send(mocks.session, "GET", Self.gateway) }
        print(
            String(
                format: "nested: a handler waiting on a nested request answered in %.1f ms",
                seconds(since: start) * 1000))
        XCTAssertEqual(reply.text, "profile of ada")
        XCTAssertEqual(service.requests.map(\.url.absoluteString), [Self.backend])
    }

    func testHandlerThatFiresARequestAndReturnsDoesNotCrash() async throws {
        let analytics = MockRegistry()
        analytics.register("https://analytics.example.com/ping") { _ in .status(204) }
        let analyticsSession = analytics.session
        let mocks = MockRegistry()
        let ping = try url("https://analytics.example.com/ping")
        let loopback = try url("http://127.0.0.1:9/never-resumed")
        mocks.register(.url(Self.gateway)) { _ in
            analyticsSession.dataTask(with: ping).resume()
            // Making a task on the shared session (never resumed, so nothing is sent) traps on
            // Linux when done on Foundation's queue.
            _ = URLSession.shared.dataTask(with: loopback)
            return .text("ok")
        }
        let reply = try await withWatchdog(10) { try await send(mocks.session, "GET", Self.gateway) }
        XCTAssertEqual(reply.text, "ok")
        for _ in 0..<500 where analytics.requests.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        XCTAssertEqual(analytics.requests.count, 1)
    }

    // MARK: A slow handler stalls nobody else

    func testSlowHandlerDelaysNoOtherRegistry() async throws {
        let slow = MockRegistry()
        slow.register("https://slow.example.com/report") { _ in
            Thread.sleep(forTimeInterval: 1.5)
            return .text("late")
        }
        let fast = MockRegistry()
        fast.register("https://fast.example.com/ping") { _ in .text("pong") }

        let slowCall = Task { try await send(slow.session, "GET", "https://slow.example.com/report") }
        for _ in 0..<500 where slow.requests.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        let start = Date()
        let reply = try await withWatchdog(10) { try await send(fast.session, "GET", "https://fast.example.com/ping") }
        let waited = seconds(since: start)
        XCTAssertEqual(reply.text, "pong")
        XCTAssertLessThan(waited, 0.5, "the fast registry waited for the slow handler")
        print(String(format: "stall: a request beside a 1.5 s handler took %.1f ms", waited * 1000))
        let late = try await slowCall.value
        XCTAssertEqual(late.text, "late")
    }

    func testTimeoutFiresWhileAHandlerIsStillRunning() async throws {
        let mocks = MockRegistry()
        mocks.register("https://slow.example.com/report") { _ in
            Thread.sleep(forTimeInterval: 2)
            return .text("too late")
        }
        var slowRequest = URLRequest(url: try url("https://slow.example.com/report"))
        slowRequest.timeoutInterval = 0.3
        let request = slowRequest
        let start = Date()
        let error = await thrownError { try await withWatchdog(10) { try await mocks.session.data(for: request) } }
        XCTAssertTimedOut(
            error,
            message: "MockNetwork: the handler for GET https://slow.example.com/report did not answer within the "
                + "request's timeout of 0.3 s.")
        XCTAssertLessThan(seconds(since: start), 1.5, "timed out at 0.3 s, not when the handler returned")
    }

    // MARK: Suspend, release, pass-through

    func testSuspendThenResumeDuringADelayCompletes() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in MockResponse.text("body").delayed(by: 0.3) }
        let done = expectation(description: "completion")
        let outcome = Shared<(Data?, (any Error)?)>((nil, nil))
        let task = mocks.session.dataTask(with: try url("https://api.example.com/slow")) { data, _, error in
            outcome.update { $0 = (data, error) }
            done.fulfill()
        }
        task.resume()
        for _ in 0..<500 where mocks.requests.isEmpty { try await Task.sleep(nanoseconds: 2_000_000) }
        task.suspend()
        try await Task.sleep(nanoseconds: 100_000_000)
        task.resume()
        await fulfillment(of: [done], timeout: 5)
        XCTAssertNil(outcome.current.1)
        XCTAssertEqual(outcome.current.0.map { String(decoding: $0, as: UTF8.self) }, "body")
        // Foundation marks the task completed just after the completion handler returns.
        for _ in 0..<500 where task.state != .completed { try await Task.sleep(nanoseconds: 2_000_000) }
        XCTAssertEqual(task.state, .completed)
    }

    func testReleasedRegistryFailsItsWaitingRequestAtOnce() async throws {
        var mocks: MockRegistry? = MockRegistry()
        mocks?.register("https://api.example.com/slow") { _ in MockResponse.text("body").delayed(by: 5) }
        // A session of the caller's own, made from the registry's configuration: it does not keep the registry.
        let session = try XCTUnwrap(mocks.map { URLSession(configuration: $0.configuration) })
        defer { session.finishTasksAndInvalidate() }
        let call = Task { try await session.data(from: try url("https://api.example.com/slow")) }
        for _ in 0..<500 where mocks?.requests.isEmpty == true { try await Task.sleep(nanoseconds: 2_000_000) }
        let releasedAt = Date()
        mocks = nil
        let error = await thrownError { try await withWatchdog(3) { try await call.value } }
        XCTAssertLessThan(seconds(since: releasedAt), 1, "failed at once, not after the 5 s delay")
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(
            (error as? URLError)?.localizedDescription,
            "MockNetwork: the MockRegistry behind this session was released. "
                + "Keep the registry alive for as long as you use its session.")
    }

    func testPassToNetworkAfterAMockedRedirectSendsTheRedirectTarget() async throws {
        let server = try LoopbackServer(routes: ["GET /new": .init(status: 200, text: "from the server")])
        let old = try XCTUnwrap(server.url("/old")).absoluteString
        let mocks = MockRegistry(unmatched: .passToNetwork)
        mocks.register(.url(old)) { _ in .status(302, headers: ["Location": "/new"]) }
        let reply = try await withWatchdog(10) { try await send(mocks.session, "GET", old) }
        XCTAssertEqual(reply.text, "from the server")
        XCTAssertEqual(server.received.map(\.target), ["/new"])
    }

    // MARK: A session kept without its registry

    func testSessionKeptWithoutItsRegistryStillAnswers() async throws {
        weak var released: MockRegistry?
        func makeSession() -> URLSession {
            let mocks = MockRegistry()
            released = mocks
            mocks.register("https://api.example.com/kept") { _ in .text("still here") }
            return mocks.session
        }
        let session = makeSession()
        for _ in 0..<100 where released != nil { try await Task.sleep(nanoseconds: 2_000_000) }
        XCTAssertNil(released, "the registry itself is gone")
        try await Task.sleep(nanoseconds: 20_000_000)  // past the sweep its release starts
        let reply = try await withWatchdog(10) { try await send(session, "GET", "https://api.example.com/kept") }
        XCTAssertEqual(reply.text, "still here")
    }
}
