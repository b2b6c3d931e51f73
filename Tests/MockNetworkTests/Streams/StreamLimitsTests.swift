import Dispatch
import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What bounds a body over time: the session's resource timeout, a response that has no body, and
/// the share of the client's context (on Linux, Foundation's one queue) a stream may take.
final class StreamLimitsTests: XCTestCase {
    private let address = "https://api.example.com/stream"

    func testTheResourceTimeoutEndsAStreamWhosePiecesEachComeInTime() async throws {
        let mocks = MockRegistry()
        // Every gap (100 ms) is well inside the request's timeout; the whole (3 s) is not inside the
        // resource timeout of 0.5 s.
        mocks.register(.url(address)) { _ in
            .streamed(Array(repeating: "x", count: 30), every: .milliseconds(100))
        }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 0.5
        let recorder = EventRecorder()
        let session = URLSession(configuration: configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)
        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: [done], timeout: 10)

        XCTAssertEqual(recorder.last, .complete(.timedOut))
        // The pieces due by then came (about five), never the whole body.
        XCTAssertLessThan(recorder.chunks.count, 30)
        XCTAssertGreaterThan(recorder.chunks.count, 0)
    }

    func testTheResourceTimeoutsMessageSaysWhatEndedTheBody() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["a", "b", "c"], every: .milliseconds(400)) }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForResource = 0.3
        let session = URLSession(configuration: configuration)
        let error = await thrownError { try await session.data(from: try url(self.address)) }
        XCTAssertTimedOut(
            error,
            message: "MockNetwork: the body of GET \(address) was still arriving at the session's "
                + "timeoutIntervalForResource of 0.3 s.")
    }

    func testHeadAnd204And304AnswersToAStreamEndAtOnce() async throws {
        let mocks = MockRegistry()
        // Three events two seconds apart: a body would take four seconds.
        let slow = MockResponse.events(
            [ServerSentEvent(data: "1"), ServerSentEvent(data: "2"), ServerSentEvent(data: "3")],
            every: .seconds(2))
        mocks.register(.url(address).method("HEAD"), answer: slow)
        mocks.register("https://api.example.com/none", answer: slow.status(204))
        mocks.register("https://api.example.com/same", answer: slow.status(304))
        let configuration = mocks.configuration
        // Were the body waited for, the request would time out first.
        configuration.timeoutIntervalForRequest = 1.5
        let session = URLSession(configuration: configuration)

        var head = URLRequest(url: try url(address))
        head.httpMethod = "HEAD"
        let (headBody, headResponse) = try await session.data(for: head)
        XCTAssertEqual(try status(headResponse), 200)
        XCTAssertEqual(headBody, Data())
        for (address, code) in [("https://api.example.com/none", 204), ("https://api.example.com/same", 304)] {
            let (body, response) = try await session.data(from: try url(address))
            XCTAssertEqual(try status(response), code)
            XCTAssertEqual(body, Data())
        }
    }

    func testAStreamTellsTheLoaderNotToSniffItsType() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .streamed(["a", "b"], every: .zero) }
        mocks.register("https://api.example.com/slow") { _ in .text("slow").throttled(bytesPerSecond: 1_000) }
        mocks.register("https://api.example.com/own") { _ in
            .streamed(["a"], every: .zero, headers: ["X-Content-Type-Options": "off"])
        }
        for (address, expected) in [
            (address, "nosniff"), ("https://api.example.com/slow", "nosniff"), ("https://api.example.com/own", "off"),
        ] {
            let (_, response) = try await mocks.session.data(from: try url(address))
            let http = try XCTUnwrap(response as? HTTPURLResponse)
            XCTAssertEqual(http.value(forHTTPHeaderField: "X-Content-Type-Options"), expected, address)
        }
    }

    func testFailingAfterMoreBytesThanTheBodyHasIsRejected() throws {
        XCTAssertThrowsError(
            try MockResponse.text("hello").failing(after: 1_000, with: URLError(.networkConnectionLost)).validated()
        ) {
            XCTAssertEqual(
                ($0 as? MockNetworkError)?.description,
                "MockNetwork: failing(after: 1000) is past the end of the 5-byte body, so it could never cut it. "
                    + "Give at most 5 (the whole body, then the failure), or a longer body.")
        }
        // The whole body, then the failure, is allowed.
        XCTAssertNoThrow(MockResponse.text("hello").failing(after: 5, with: URLError(.networkConnectionLost)))
    }

    func testASlowRateBuildsNoPiecesUpFrontAndStallsNoOtherRegistry() async throws {
        // 20 MB at one byte a second: 20 million pieces, were they built when the stream starts.
        let slow = MockRegistry()
        slow.register(.url(address)) { _ in .data(Data(count: 20_000_000)).throttled(bytesPerSecond: 1) }
        let recorder = EventRecorder()
        let session = URLSession(configuration: slow.configuration, delegate: recorder, delegateQueue: nil)
        let task = session.dataTask(with: try url(address))
        task.resume()
        defer {
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        let other = MockRegistry()
        other.register("https://api.example.com/quick", answer: .text("quick"))
        let started = DispatchTime.now().uptimeNanoseconds
        let (data, _) = try await other.session.data(from: try url("https://api.example.com/quick"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "quick")
        // Building the pieces up front took seconds (5.2 s measured) while Foundation's queue was held.
        XCTAssertLessThan(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9, 2)
    }

    func testAHundredThousandPiecesDueAtOnceLetOtherRequestsIn() async throws {
        let streaming = MockRegistry()
        let pieces = (0..<100_000).map { _ in "x" }
        streaming.register(.url(address)) { _ in .streamed(pieces, every: .zero) }
        let other = MockRegistry()
        other.register("https://api.example.com/quick", answer: .text("quick"))
        let firstPiece = expectation(description: "first piece")
        let recorder = EventRecorder()
        let once = Shared(false)
        recorder.whenData {
            let first = once.update { seen in
                defer { seen = true }
                return !seen
            }
            if first { firstPiece.fulfill() }
        }
        let session = URLSession(configuration: streaming.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)
        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: [firstPiece], timeout: 10)
        // Asked for once the stream is under way: answered between two turns of the stream, not
        // after all of it. Compared with the stream's own length, so the machine's speed cancels out.
        let asked = DispatchTime.now().uptimeNanoseconds
        _ = try await other.session.data(from: try url("https://api.example.com/quick"))
        let answered = DispatchTime.now().uptimeNanoseconds
        await fulfillment(of: [done], timeout: 30)
        XCTAssertEqual(recorder.chunks.count, 100_000)
        let times = recorder.times.current
        let stream = Double(try XCTUnwrap(times.last) - times[1])
        XCTAssertLessThan(
            Double(answered - asked), stream / 4,
            "the other registry's request waited for most of the stream (\(answered - asked) ns of \(stream) ns)")
    }
}
