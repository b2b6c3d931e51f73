import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class CancellationTests: XCTestCase {
    private static let slow = "https://api.example.com/slow"

    /// A registry whose `slow` URL (any query) answers after `delay`, and counts the requests it received.
    private func slowRegistry(delay: TimeInterval) -> MockRegistry {
        let mocks = MockRegistry()
        mocks.register(.url(Self.slow, query: .ignored)) { _ in MockResponse.text("body").delayed(by: delay) }
        return mocks
    }

    /// Waits (without blocking a thread) until the registry has received `count` requests.
    private func waitForRequests(_ mocks: MockRegistry, count: Int = 1) async throws {
        for _ in 0..<10_000 where mocks.requests.count < count { try await Task.sleep(nanoseconds: 1_000_000) }
        XCTAssertGreaterThanOrEqual(mocks.requests.count, count, "the request never reached the protocol")
    }

    func testCancellingTheURLSessionTaskDuringADelayGivesCancelledPromptly() async throws {
        let mocks = slowRegistry(delay: 5)
        let outcome = Shared<(calls: Int, data: Data?, response: URLResponse?, error: (any Error)?)>((0, nil, nil, nil))
        let done = expectation(description: "completion handler")
        let task = mocks.session.dataTask(with: try url(Self.slow)) { data, response, error in
            outcome.update { $0 = ($0.calls + 1, data, response, error) }
            done.fulfill()
        }
        task.resume()
        try await waitForRequests(mocks)

        let cancelledAt = Date()
        task.cancel()
        await fulfillment(of: [done], timeout: 3)
        XCTAssertLessThan(seconds(since: cancelledAt), 1, "cancelled at once, not after the 5 s delay")
        let result = outcome.current
        XCTAssertEqual((result.error as? URLError)?.code, .cancelled)
        XCTAssertNil(result.data)
        XCTAssertNil(result.response)
        XCTAssertEqual(result.calls, 1)
    }

    func testCancellingTheSwiftTaskAroundDataForDuringADelayGivesCancelledPromptly() async throws {
        let mocks = slowRegistry(delay: 5)
        let slow = Self.slow
        let call = Task { try await mocks.session.data(for: URLRequest(url: try url(slow))) }
        try await waitForRequests(mocks)

        let cancelledAt = Date()
        call.cancel()
        let error = await thrownError { try await call.value }
        XCTAssertLessThan(seconds(since: cancelledAt), 1)
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
        XCTAssertEqual(mocks.endOfTestFailures(), [], "nothing left in flight")
        XCTAssertEqual(mocks.failures, [], "cancelling is no failure")
    }

    /// 1,000 requests delayed by 10 s, cancelled at varied moments: before the protocol has started,
    /// right after, or while it waits; half through the Swift task around `data(for:)`, half through
    /// `URLSessionTask.cancel()`; 20 at a time.
    func testThousandCancelsDuringDelaysAllEndCancelledWithoutACrash() async throws {
        let mocks = slowRegistry(delay: 10)
        let slow = Self.slow
        var codes: [URLError.Code?] = []
        let start = Date()
        for batch in 0..<50 {
            let results = try await withThrowingTaskGroup(of: URLError.Code?.self) { group in
                for slot in 0..<20 {
                    let round = batch * 20 + slot
                    let address = try url("\(slow)?round=\(round)")
                    group.addTask {
                        try await Self.cancelDuringDelay(mocks, address, round: round)
                    }
                }
                var codes: [URLError.Code?] = []
                for try await code in group { codes.append(code) }
                return codes
            }
            codes += results
        }
        XCTAssertEqual(codes.count, 1000)
        XCTAssertEqual(codes.filter { $0 == .cancelled }.count, 1000, "every caller gets URLError(.cancelled)")
        XCTAssertLessThan(seconds(since: start), 60, "no round waited for its delay")
        XCTAssertEqual(mocks.endOfTestFailures(), [], "no request left in flight")
        XCTAssertEqual(mocks.failures, [])
    }

    /// One round: starts a request, cancels it at a moment chosen by `round`, and returns the error code.
    private static func cancelDuringDelay(_ mocks: MockRegistry, _ address: URL, round: Int) async throws -> URLError
        .Code?
    {
        func pause() async throws {
            switch round % 5 {
            case 0: break
            case 1: await Task.yield()
            case 2: try await Task.sleep(nanoseconds: 200_000)
            case 3: try await Task.sleep(nanoseconds: 1_000_000)
            default: try await Task.sleep(nanoseconds: 3_000_000)
            }
        }
        if round.isMultiple(of: 2) {
            let call = Task { try await mocks.session.data(from: address) }
            try await pause()
            call.cancel()
            do {
                _ = try await call.value
                return nil
            } catch {
                return (error as? URLError)?.code
            }
        } else {
            let outcome = Shared<(calls: Int, code: URLError.Code?)>((0, nil))
            return await withCheckedContinuation { continuation in
                let task = mocks.session.dataTask(with: address) { _, _, error in
                    let calls = outcome.update { state in
                        state.calls += 1
                        state.code = (error as? URLError)?.code
                        return state.calls
                    }
                    if calls == 1 { continuation.resume(returning: (error as? URLError)?.code) }
                }
                task.resume()
                Task {
                    try? await pause()
                    task.cancel()
                }
            }
        }
    }

    /// When the cancel comes just as the delay ends, the caller gets either the whole answer or
    /// `.cancelled`, exactly once, and never a crash.
    ///
    /// The cancel goes through `URLSessionTask.cancel()`: cancelling the Swift task around
    /// `data(for:)` at the moment a response is delivered deadlocks Foundation on Linux with
    /// Swift 6.3.1, with any protocol (swift-corelibs-foundation issue #5412).
    func testCancelRacingTheEndOfTheDelayGivesTheAnswerOrCancelledOnce() async throws {
        let mocks = slowRegistry(delay: 0.002)
        let slow = Self.slow
        let calls = Shared<[Int: Int]>([:])
        var answered = 0
        var cancelled = 0
        var other: [String] = []
        for batch in 0..<25 {
            let results = try await withThrowingTaskGroup(of: Result<Data, any Error>.self) { group in
                for slot in 0..<20 {
                    let round = batch * 20 + slot
                    let address = try url("\(slow)?round=\(round)")
                    group.addTask {
                        await withCheckedContinuation { continuation in
                            let task = mocks.session.dataTask(with: address) { data, _, error in
                                let count = calls.update { calls in
                                    calls[round, default: 0] += 1
                                    return calls[round, default: 0]
                                }
                                guard count == 1 else { return }
                                continuation.resume(returning: error.map { .failure($0) } ?? .success(data ?? Data()))
                            }
                            task.resume()
                            Task {
                                try? await Task.sleep(nanoseconds: UInt64(round % 7) * 500_000)
                                task.cancel()
                            }
                        }
                    }
                }
                var results: [Result<Data, any Error>] = []
                for try await result in group { results.append(result) }
                return results
            }
            for result in results {
                switch result {
                case .success(let data) where data == Data("body".utf8): answered += 1
                case .failure(let error as URLError) where error.code == .cancelled: cancelled += 1
                case .success(let data): other.append("data \(data.count) bytes")
                case .failure(let error): other.append(String(describing: error))
                }
            }
        }
        try await Task.sleep(nanoseconds: 100_000_000)  // time for a second call, were there one
        XCTAssertEqual(answered + cancelled, 500, "other outcomes: \(other.prefix(5))")
        XCTAssertEqual(other, [])
        XCTAssertEqual(calls.current.count, 500)
        XCTAssertEqual(calls.current.values.filter { $0 != 1 }.count, 0, "a completion handler called twice")
        XCTAssertEqual(mocks.endOfTestFailures(), [])
    }

    func testNothingReachesADelegateAfterTheTaskIsCancelled() async throws {
        let mocks = slowRegistry(delay: 0.3)
        let recorder = EventRecorder()
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)

        let task = session.dataTask(with: try url(Self.slow))
        task.resume()
        try await waitForRequests(mocks)
        task.cancel()
        await fulfillment(of: [done], timeout: 3)
        try await Task.sleep(nanoseconds: 600_000_000)  // past the end of the delay

        XCTAssertEqual(recorder.events.current, [.complete(.cancelled)])
    }

    func testCompletionHandlerIsCalledOnceWhenCancelledDuringADelay() async throws {
        let mocks = slowRegistry(delay: 0.3)
        let calls = Shared<[URLError.Code?]>([])
        let task = mocks.session.dataTask(with: try url(Self.slow)) { _, _, error in
            calls.update { $0.append((error as? URLError)?.code) }
        }
        task.resume()
        try await waitForRequests(mocks)
        task.cancel()
        try await Task.sleep(nanoseconds: 700_000_000)  // past the end of the delay

        XCTAssertEqual(calls.current, [.cancelled])
    }
}
