import Dispatch
import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Many answers ready at once, and many handlers that block, never use up the process's threads.
///
/// Dispatch gives a process about 255 worker threads. Each case here had every one of them waiting
/// for Foundation's queue (answers) or blocked in a handler, after which nothing in the process ran
/// again, timers included. Each case runs at 600 requests, more than twice MockNetwork's pool of
/// handler threads and past Dispatch's limit, under a watchdog thread that
/// ends the run if they do not all finish.
final class ThreadLimitTests: XCTestCase {
    private static let count = 600
    private var count: Int { Self.count }

    /// Runs `count` requests to `address` on `session` at once; returns how many got a 2xx answer.
    private static func runAll(_ session: URLSession, _ address: String, count: Int) async throws -> Int {
        let target = try url(address)
        return await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    guard let (_, response) = try? await session.data(from: target) else { return false }
                    return (200..<300).contains((response as? HTTPURLResponse)?.statusCode ?? 0)
                }
            }
            var answered = 0
            for await ok in group where ok { answered += 1 }
            return answered
        }
    }

    /// Fails the run (not only the test) when `body` does not end within `seconds`.
    private func guarded<T>(_ what: String, within seconds: TimeInterval = 30, _ body: () async throws -> T)
        async rethrows -> T
    {
        let finished = Shared(false)
        endRunUnlessFinished(finished, within: seconds, what)
        defer { finished.update { $0 = true } }
        return try await body()
    }

    func testSixHundredHeldRequestsReleasedAtOnceAllFinish() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/held"
        let gate = mocks.hold(address)
        try await guarded("600 held requests, released at once") {
            async let answered = Self.runAll(mocks.session, address, count: Self.count)
            for _ in 0..<count { try await gate.arrived(timeout: 60) }
            gate.release(with: .text("go"))
            let all = try await answered
            XCTAssertEqual(all, count)
        }
    }

    func testHeldRequestsAndMoreArrivingAfterTheReleaseAllFinish() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/held"
        let gate = mocks.hold(address)
        try await guarded("300 held requests and 300 after the release") {
            async let first = Self.runAll(mocks.session, address, count: Self.count / 2)
            for _ in 0..<count / 2 { try await gate.arrived(timeout: 60) }
            gate.release(with: .text("go"))
            async let second = Self.runAll(mocks.session, address, count: Self.count / 2)
            let (a, b) = try await (first, second)
            XCTAssertEqual(a + b, count)
        }
    }

    func testHandlersThatBlockFiftyMillisecondsAllFinish() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/slow"
        mocks.register(.url(address)) { _ in
            Thread.sleep(forTimeInterval: 0.05)
            return .text("slow")
        }
        try await guarded("600 handlers that block 50 ms") {
            let answered = try await Self.runAll(mocks.session, address, count: count)
            XCTAssertEqual(answered, count)
        }
    }

    func testAsyncHandlersThatBlockTheirThreadAllFinish() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/slow-async"
        mocks.register(.url(address)) { _ async throws in
            usleep(50_000)
            return .text("slow")
        }
        try await guarded("600 async handlers that block 50 ms") {
            let answered = try await Self.runAll(mocks.session, address, count: count)
            XCTAssertEqual(answered, count)
        }
    }
}
