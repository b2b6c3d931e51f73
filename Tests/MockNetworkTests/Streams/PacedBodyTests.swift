import Dispatch
import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies over time: each piece reaches a session data delegate as its own `didReceive data`, no
/// sooner than its time; `data(for:)` gets the whole body; a fault ends the task with its error.
/// The tests check order and minimum spacing, never that something happened within a time.
final class PacedBodyTests: XCTestCase {
    private let address = "https://api.example.com/stream"

    private func delegateSession(_ mocks: MockRegistry, _ recorder: EventRecorder) -> URLSession {
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        addTeardownBlock { session.finishTasksAndInvalidate() }
        return session
    }

    /// Runs one task on a delegate session and waits for it to complete.
    private func run(_ mocks: MockRegistry) async throws -> EventRecorder {
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)
        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: [done], timeout: 10)
        return recorder
    }

    func testChunksArriveOneByOneAtTheirTimes() async throws {
        let mocks = MockRegistry()
        let chunks = ["one ", "two ", "three ", "four"]
        mocks.register(.url(address)) { _ in .streamed(chunks, every: .milliseconds(40)) }

        let recorder = try await run(mocks)

        XCTAssertEqual(recorder.chunks.map { String(decoding: $0, as: UTF8.self) }, chunks)
        XCTAssertEqual(recorder.last, .complete(nil))
        // Piece n is not delivered before n × 40 ms after the response.
        for (index, offset) in recorder.chunkOffsets.enumerated() {
            XCTAssertGreaterThanOrEqual(offset, Double(index) * 0.040, "piece \(index) came early")
        }
    }

    func testAStreamSendsNoContentLengthAndItsContentType() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed([Data([1, 2]), Data([3])], every: .zero) }

        let (data, response) = try await mocks.session.data(from: try url(address))

        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertNil(http.value(forHTTPHeaderField: "Content-Length"))
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/octet-stream")
        XCTAssertEqual(response.expectedContentLength, -1)
        XCTAssertEqual(data, Data([1, 2, 3]))
    }

    func testDataForGetsTheWholeBodyOnceItEnds() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["a", "b", "c"], every: .milliseconds(30)) }
        let started = DispatchTime.now().uptimeNanoseconds

        let (data, _) = try await mocks.session.data(from: try url(address))

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "abc")
        // The last piece is due 60 ms after the response: the body is not whole before.
        XCTAssertGreaterThanOrEqual(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, 0.059)
    }

    func testACompletionHandlerGetsTheWholeBody() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["x", "y"], every: .milliseconds(5)) }
        let body = Shared<Data?>(nil)
        let done = expectation(description: "completion")

        mocks.session.dataTask(with: try url(address)) { data, _, _ in
            body.update { $0 = data }
            done.fulfill()
        }.resume()
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(body.current, Data("xy".utf8))
    }

    func testThrottlingSpreadsTheBodyOverTheTimeItsSizeAndRateImply() async throws {
        let mocks = MockRegistry()
        let body = Data(repeating: 7, count: 4_000)
        // 20,000 bytes a second: pieces of 1,000 bytes, the last due 200 ms after the response.
        mocks.register(.url(address)) { _ in MockResponse.data(body).throttled(bytesPerSecond: 20_000) }

        let recorder = try await run(mocks)

        XCTAssertEqual(recorder.chunks.reduce(Data(), +), body)
        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is.
            XCTAssertEqual(recorder.chunks.map(\.count), [1_000, 1_000, 1_000, 1_000])
        #endif
        let offsets = recorder.chunkOffsets
        XCTAssertGreaterThanOrEqual(offsets.last ?? 0, 0.200, "the whole body takes 4,000 / 20,000 s")
        for (index, offset) in offsets.enumerated() {
            XCTAssertGreaterThanOrEqual(offset, Double(index + 1) * 0.050, "piece \(index) came early")
        }
    }

    func testThrottlingKeepsTheContentLength() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in MockResponse.text("hello").throttled(bytesPerSecond: 1_000_000) }

        let (data, response) = try await mocks.session.data(from: try url(address))

        XCTAssertEqual(data, Data("hello".utf8))
        XCTAssertEqual(response.expectedContentLength, 5)
    }

    func testAFaultDeliversTheResponseAndTheFirstBytesThenFails() async throws {
        let mocks = MockRegistry()
        let body = Data((0..<100).map { UInt8($0) })
        mocks.register(.url(address)) { _ in
            MockResponse.streamed([body[0..<40], body[40..<100]].map { Data($0) }, every: .milliseconds(10))
                .failing(after: 50, with: URLError(.networkConnectionLost))
        }

        let recorder = try await run(mocks)

        XCTAssertEqual(recorder.events.current.first, .response(200))
        XCTAssertEqual(recorder.chunks.reduce(Data(), +), body[0..<50])
        #if canImport(FoundationNetworking)
            XCTAssertEqual(recorder.chunks.map(\.count), [40, 10])
        #endif
        XCTAssertEqual(recorder.last, .complete(.networkConnectionLost))
    }

    func testAFaultFailsDataFor() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in
            MockResponse.text(String(repeating: "x", count: 2_048)).failing(
                after: 1_024, with: URLError(.networkConnectionLost))
        }

        let error = await thrownError { _ = try await mocks.session.data(from: try url(self.address)) }

        XCTAssertEqual((error as? URLError)?.code, .networkConnectionLost)
    }

    func testAFaultAtZeroFailsRightAfterTheResponse() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in
            MockResponse.text("never").failing(after: 0, with: URLError(.timedOut))
        }

        let recorder = try await run(mocks)

        XCTAssertEqual(recorder.events.current, [.response(200), .complete(.timedOut)])
    }

    /// A gap between pieces as long as the request's timeout fails it then, as a stalled connection
    /// does: after the pieces before the gap.
    func testAStreamThatStallsLongerThanTheTimeoutTimesOut() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["first", "never"], every: .seconds(30)) }
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)
        var request = URLRequest(url: try url(address))
        request.timeoutInterval = 0.2

        session.dataTask(with: request).resume()
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(recorder.events.current, [.response(200), .data(Data("first".utf8)), .complete(.timedOut)])
        XCTAssertGreaterThanOrEqual(recorder.chunkOffsets.count, 1)
        let error = await thrownError { _ = try await mocks.session.data(for: request) }
        XCTAssertTimedOut(
            error,
            message: "MockNetwork: the body's next piece comes 30 s after the one before, longer than the "
                + "request's timeout of 0.2 s: a gap that long ends the request.")
    }

    /// The timeout is for each gap, not the whole body: a stream longer than it, whose pieces come
    /// closer together, ends whole.
    func testAStreamLongerThanTheTimeoutWithShorterGapsEndsWhole() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["a", "b", "c", "d", "e"], every: .milliseconds(50)) }
        var request = URLRequest(url: try url(address))
        request.timeoutInterval = 0.12

        let (data, _) = try await mocks.session.data(for: request)

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "abcde")
    }

    func testBadPacingIsAClearError() throws {
        XCTAssertThrowsError(try MockResponse.text("x").throttled(bytesPerSecond: 0).validated()) { error in
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: throttled(bytesPerSecond: 0) would never send the body. Give a rate above 0, "
                    + "e.g. 64_000 for a slow mobile network.")
        }
        XCTAssertThrowsError(try MockResponse.text("x").failing(after: -1, with: URLError(.timedOut)).validated()) {
            error in
            XCTAssertTrue("\(error)".contains("failing(after: -1) is a negative number of bytes"), "\(error)")
        }
        XCTAssertThrowsError(try MockResponse.streamed(["a"], every: .milliseconds(-5)).validated()) { error in
            XCTAssertTrue("\(error)".contains("every: -0.005 seconds is negative"), "\(error)")
        }
    }

    func testCancellingMidStreamStopsDeliveryAtOnce() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["first", "second", "third"], every: .milliseconds(200)) }
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)
        let task = session.dataTask(with: try url(address))
        recorder.whenData { task.cancel() }

        task.resume()
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(
            recorder.events.current, [.response(200), .data(Data("first".utf8)), .complete(.cancelled)])
    }

    /// A thousand requests cancelled at every point of a stream, a fault and a throttled body:
    /// none crashes, each ends once, cancelled or whole.
    func testCancellingAtAnyPointNeverCrashes() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { request in
            switch request.url?.query {
            case "throttled": MockResponse.data(Data(count: 300)).throttled(bytesPerSecond: 100_000)
            case "fault":
                MockResponse.streamed(["ab", "cd", "ef"], every: .milliseconds(1))
                    .failing(after: 3, with: URLError(.networkConnectionLost))
            default: MockResponse.streamed(["ab", "cd", "ef"], every: .milliseconds(1))
            }
        }
        let recorder = CountingDelegate()
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let kinds = ["stream", "throttled", "fault"]
        let address = self.address

        try await withWatchdog(120) {
            for round in 0..<1_000 {
                let task = session.dataTask(with: try url("\(address)?\(kinds[round % 3])"))
                task.resume()
                if round % 4 != 0 {
                    // Cancel after a few microseconds to a couple of milliseconds: before, during or after the pieces.
                    try await Task.sleep(nanoseconds: UInt64(round % 7) * 300_000)
                }
                task.cancel()
            }
            await recorder.waitForCompletions(1_000)
        }

        XCTAssertEqual(recorder.completions.current, 1_000, "every task completes once")
    }
}

/// Counts completions, and lets a test await a number of them.
final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is `Shared`
    let completions = Shared(0)
    private let waiter = Shared<(count: Int, continuation: CheckedContinuation<Void, Never>)?>(nil)

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let count = completions.update {
            $0 += 1
            return $0
        }
        if let waiting = waiter.update({ waiter -> CheckedContinuation<Void, Never>? in
            guard let current = waiter, count >= current.count else { return nil }
            waiter = nil
            return current.continuation
        }) {
            waiting.resume()
        }
    }

    /// Returns once `count` tasks have completed.
    func waitForCompletions(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let reached = completions.update { completed in
                if completed >= count { return true }
                waiter.update { $0 = (count, continuation) }
                return false
            }
            if reached { continuation.resume() }
        }
    }
}
