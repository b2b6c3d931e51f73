import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests the test holds (`hold`) or awaits (`nextRequest`): checked by the order of events,
/// never by sleeping.
final class HoldAndNextRequestTests: XCTestCase {
    private let feed = "https://api.example.com/feed"

    func testAHeldRequestWaitsForItsRelease() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold(feed)
        let answered = Shared(false)
        let session = mocks.session
        let feed = self.feed
        let load = Task {
            let (data, _) = try await session.data(from: try url(feed))
            answered.update { $0 = true }
            return String(decoding: data, as: UTF8.self)
        }

        let arrived = try await gate.arrived()

        XCTAssertEqual(arrived.url.absoluteString, feed)
        XCTAssertFalse(answered.current, "nothing is answered before the release")
        XCTAssertEqual(gate.held.map(\.url.absoluteString), [feed])
        gate.release(with: .json(#"{"items":[]}"#))
        let text = try await load.value
        XCTAssertEqual(text, #"{"items":[]}"#)
        XCTAssertEqual(gate.held, [])
    }

    func testAfterTheReleaseRequestsAreAnsweredAtOnce() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold(feed, method: "GET")
        gate.release(with: .text("open"))

        let (data, _) = try await mocks.session.data(from: try url(feed))
        let arrived = try await gate.arrived()

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "open")
        XCTAssertEqual(arrived.method, "GET", "a request that came before arrived() counts")
    }

    func testEveryHeldRequestIsReleasedAndArrivalsComeInOrder() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold(.host("api.example.com", path: "/items/*"))
        let session = mocks.session
        let first = Task { try await session.data(from: try url("https://api.example.com/items/1")) }
        let one = try await gate.arrived()
        let second = Task { try await session.data(from: try url("https://api.example.com/items/2")) }
        let two = try await gate.arrived()

        XCTAssertEqual([one, two].map(\.url.path), ["/items/1", "/items/2"])
        gate.release(with: .status(204))
        let statuses = [try status(try await first.value.1), try status(try await second.value.1)]
        XCTAssertEqual(statuses, [204, 204])
    }

    func testAHeldRequestTimesOutAtItsTimeout() async throws {
        let mocks = MockRegistry()
        mocks.hold(feed)
        var request = URLRequest(url: try url(feed))
        request.timeoutInterval = 0.2

        let error = await thrownError { _ = try await mocks.session.data(for: request) }

        XCTAssertTimedOut(
            error,
            message: "MockNetwork: GET \(feed) was held by hold(_:) and not released within the request's timeout "
                + "of 0.2 s.")
    }

    func testCancellingAHeldRequestEndsIt() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold(feed)
        let session = mocks.session
        let feed = self.feed
        let load = Task { try await session.data(from: try url(feed)) }
        try await gate.arrived()

        load.cancel()

        let error = await thrownError { _ = try await load.value }
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
        try await withWatchdog(10) {
            while !gate.held.isEmpty { await Task.yield() }
        }
    }

    func testARequestStillHeldAtTheEndOfTheTestIsReportedWithItsURL() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        let gate = mocks.hold(feed)
        let session = mocks.session
        let feed = self.feed
        let load = Task { try await session.data(from: try url(feed)) }
        try await gate.arrived()

        let failures = mocks.endOfTestFailures()

        XCTAssertEqual(
            failures.map(\.message),
            [
                "MockNetwork: GET \(feed) was still held by hold(\(feed)) when the test ended. Release it with "
                    + "release(with:) before the test returns, or cancel the request."
            ])
        XCTAssertEqual(failures.first?.location?.line, line)
        // The request then ends, so nothing waits on a test that is over.
        let error = await thrownError { _ = try await load.value }
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
    }

    func testArrivedFailsWhenNoRequestComes() async throws {
        let mocks = MockRegistry()
        let gate = mocks.hold(feed)

        let error = await thrownError { try await gate.arrived(timeout: 0.05) }

        XCTAssertEqual(
            "\(error.map { "\($0)" } ?? "no error")",
            "MockNetwork: no request reached hold(\(feed)) within 0.05 s. Check that the code under test makes it, "
                + "to that URL and with that method, or give arrived(timeout:) longer.")
    }

    // MARK: nextRequest

    func testNextRequestWaitingAcrossAResetReturnsTheMatchingRequest() async throws {
        let mocks = MockRegistry()
        // A waiter whose continuation leaks never returns, and a task group waits for it: only a
        // watchdog outside Swift concurrency turns that hang into a failed run.
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 60, "\(#function)")
        defer { finished.update { $0 = true } }
        let feed = self.feed
        let waiter = Task { try await mocks.nextRequest(matching: .url(feed), timeout: 20) }
        try await waitUntilWaiting(mocks)
        mocks.reset()
        mocks.register(.url(feed), answer: .text("feed"))
        _ = try await mocks.session.data(from: try url(feed))
        let seen = try await withWatchdog(10) { try await waiter.value }
        XCTAssertEqual(seen.url.absoluteString, feed)
    }

    func testNextRequestWaitingAcrossAResetEndsAtItsTimeout() async throws {
        let mocks = MockRegistry()
        // A waiter whose continuation leaks never returns, and a task group waits for it: only a
        // watchdog outside Swift concurrency turns that hang into a failed run.
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 60, "\(#function)")
        defer { finished.update { $0 = true } }
        let feed = self.feed
        let waiter = Task { try await mocks.nextRequest(matching: .url(feed), timeout: 0.2) }
        try await waitUntilWaiting(mocks)
        mocks.reset()
        let error = try await withWatchdog(10) { await thrownError { try await waiter.value } }
        let message = "\(error.map { "\($0)" } ?? "")"
        XCTAssertTrue(message.hasPrefix("MockNetwork: no request matching \(feed) came within 0.2 s"), message)
    }

    func testNextRequestWaitingAcrossAResetEndsWhenCancelled() async throws {
        let mocks = MockRegistry()
        // A waiter whose continuation leaks never returns, and a task group waits for it: only a
        // watchdog outside Swift concurrency turns that hang into a failed run.
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: 60, "\(#function)")
        defer { finished.update { $0 = true } }
        let feed = self.feed
        let waiter = Task { try await mocks.nextRequest(matching: .url(feed), timeout: 60) }
        try await waitUntilWaiting(mocks)
        mocks.reset()
        waiter.cancel()
        let error = try await withWatchdog(10) { await thrownError { try await waiter.value } }
        XCTAssertTrue(error is CancellationError, "\(String(describing: error))")
    }

    func testANextRequestTimeoutThatIsNoNumberIsRejected() async throws {
        let mocks = MockRegistry()
        let feed = self.feed
        for timeout in [TimeInterval.nan, -1] {
            let error = try await withWatchdog(10) {
                await thrownError { try await mocks.nextRequest(matching: .url(feed), timeout: timeout) }
            }
            XCTAssertEqual(
                "\(error.map { "\($0)" } ?? "")",
                "MockNetwork: nextRequest(matching:timeout:) was given a timeout of \(timeout) s. Give a number of "
                    + "seconds of 0 or more (.infinity waits until the request comes or the task is cancelled).")
        }
    }

    /// Returns once a `nextRequest` call waits on `mocks`.
    private func waitUntilWaiting(_ mocks: MockRegistry) async throws {
        try await withWatchdog(10) {
            while !mocks.hasRequestWaiters { await Task.yield() }
        }
    }

    func testNextRequestReturnsARequestMadeAfterTheCall() async throws {
        let mocks = MockRegistry()
        let analytics = "https://api.example.com/analytics"
        mocks.register(.url(analytics), method: "POST") { _ in .status(202) }
        let session = mocks.session
        let waiting = Task { try await mocks.nextRequest(matching: .url(analytics).method("POST"), timeout: 10) }
        // Fire and forget, as an app's analytics call does.
        var post = URLRequest(url: try url(analytics))
        post.httpMethod = "POST"
        post.httpBody = Data(#"{"event":"open"}"#.utf8)
        session.dataTask(with: post).resume()

        let sent = try await waiting.value

        XCTAssertEqual(sent.body, Data(#"{"event":"open"}"#.utf8))
        XCTAssertEqual(sent.method, "POST")
    }

    func testNextRequestReturnsEachMatchingRequestOnceInOrder() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com", path: "/e/*")) { _ in .status(204) }
        for name in ["a", "b", "c"] {
            _ = try await mocks.session.data(from: try url("https://api.example.com/e/\(name)"))
        }

        let match = RequestMatch.host("api.example.com", path: "/e/*")
        let first = try await mocks.nextRequest(matching: match)
        let second = try await mocks.nextRequest(matching: match)
        let third = try await mocks.nextRequest(matching: .url("https://api.example.com/e/c"))

        XCTAssertEqual([first, second, third].map(\.url.path), ["/e/a", "/e/b", "/e/c"])
    }

    func testNextRequestNamesWhatWasRegisteredAndSeenWhenNoneComes() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in .json("{}") }
        _ = try await mocks.session.data(from: try url("https://api.example.com/user"))

        let error = await thrownError {
            _ = try await mocks.nextRequest(
                matching: .url("https://api.example.com/analytics").method("POST"), timeout: 0.05)
        }

        XCTAssertEqual(
            "\(error.map { "\($0)" } ?? "no error")",
            "MockNetwork: no request matching POST https://api.example.com/analytics came within 0.05 s. "
                + "Registered: https://api.example.com/user. Requested: GET https://api.example.com/user. "
                + "Check the URL, method and rules of the match, or give a longer timeout.")
    }

    func testCancellingNextRequestEndsItsWait() async throws {
        let mocks = MockRegistry()
        let waiting = Task { try await mocks.nextRequest(matching: .url("https://api.example.com/x"), timeout: 60) }

        waiting.cancel()

        let error = await thrownError { _ = try await waiting.value }
        XCTAssertTrue(error is CancellationError, "\(String(describing: error))")
    }
}

/// `Duration` wherever a time is given, beside seconds: `.delayed(by:)`, `nextRequest(timeout:)` and
/// `arrived(timeout:)` read as `.every:` and `.throttled` do.
final class DurationFormsTests: XCTestCase {
    func testEachTakesADuration() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in
            MockResponse.text("late").delayed(by: .milliseconds(30))
        }
        XCTAssertEqual(MockResponse.text("x").delayed(by: .milliseconds(250)).delay, 0.25)
        let gate = mocks.hold("https://api.example.com/held")
        let held = Task { try await mocks.session.data(from: try url("https://api.example.com/held")) }
        let arrived = try await gate.arrived(timeout: .seconds(5))
        XCTAssertEqual(arrived.url.absoluteString, "https://api.example.com/held")
        gate.release(with: .text("go"))
        _ = try await held.value
        let slow = Task { try await mocks.session.data(from: try url("https://api.example.com/slow")) }
        let seen = try await mocks.nextRequest(matching: .url("https://api.example.com/slow"), timeout: .seconds(5))
        XCTAssertEqual(seen.method, "GET")
        let (data, _) = try await slow.value
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "late")
    }
}
