import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every answer reaches the client from where it may be called: while Foundation's queue is held on
/// Linux (inside `startLoading`, or by a thread that took it), on the thread that ran `startLoading`
/// on Apple platforms. Checked through a test-only hook.
final class ClientContextTests: XCTestCase {
    func testEveryKindOfAnswerIsDeliveredFromTheClientsContext() async throws {
        let checks = Shared<[Bool]>([])
        MockURLProtocol.clientCallCheck = { onClientContext in checks.update { $0.append(onClientContext) } }
        defer { MockURLProtocol.clientCallCheck = nil }

        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/inline"), sequence: [.text("inline")])
        mocks.register("https://api.example.com/handler") { _ in .text("handler") }
        mocks.register("https://api.example.com/delayed") { _ in MockResponse.text("delayed").delayed(by: 0.05) }
        mocks.register("https://api.example.com/slow") { _ in
            Thread.sleep(forTimeInterval: 0.5)
            return .text("too late")
        }
        mocks.register("https://api.example.com/redirect") { _ in
            .status(302, headers: ["Location": "/handler"])
        }
        let session = mocks.session

        try await withWatchdog(20) {
            for path in ["inline", "handler", "delayed", "redirect"] {
                _ = try await send(session, "GET", "https://api.example.com/\(path)")
            }
            var slow = URLRequest(url: try url("https://api.example.com/slow"))
            slow.timeoutInterval = 0.1
            let request = slow
            _ = try? await session.data(for: request)
            _ = try? await session.data(from: try url("https://api.example.com/unmatched"))
        }
        _ = mocks.failures  // the unmatched request's report, not under test here
        #if canImport(FoundationNetworking)
            // One delivery per request: on Linux MockNetwork follows the redirect inside one protocol.
            XCTAssertEqual(checks.current.count, 6)
        #else
            // Apple's URL loading follows the redirect in a new protocol: two deliveries for it. The
            // slow request's timeout may be failed by Apple's own timer first, with no delivery.
            XCTAssertTrue([6, 7].contains(checks.current.count), "\(checks.current)")
        #endif
        XCTAssertEqual(checks.current, Array(repeating: true, count: checks.current.count))
    }

    /// An answer that is ready before `startLoading` returns (here: a context that runs the handler
    /// at once) is delivered there, as `startLoading` leaves. Resuming the task from inside
    /// `startLoading` instead traps on Linux (`dispatch_sync` onto the queue it runs on).
    func testAnswerReadyBeforeStartLoadingReturnsIsDeliveredThere() async throws {
        let checks = Shared<[Bool]>([])
        MockURLProtocol.clientCallCheck = { onClientContext in checks.update { $0.append(onClientContext) } }
        defer { MockURLProtocol.clientCallCheck = nil }

        let mocks = MockRegistry()
        mocks.handlerRunner = InlineRunner()
        mocks.register("https://api.example.com/at-once") { _ in .text("at once") }
        mocks.register("https://api.example.com/redirect") { _ in .status(302, headers: ["Location": "/at-once"]) }

        let replies = try await withWatchdog(10) {
            [
                try await send(mocks.session, "GET", "https://api.example.com/at-once"),
                try await send(mocks.session, "GET", "https://api.example.com/redirect"),
            ]
        }
        XCTAssertEqual(replies.map(\.text), ["at once", "at once"])
        XCTAssertEqual(replies.map(\.status), [200, 200])
        #if canImport(FoundationNetworking)
            XCTAssertEqual(checks.current, [true, true])
        #else
            // Apple's URL loading follows the redirect in a new protocol: the redirect is delivered too.
            XCTAssertEqual(checks.current, [true, true, true])
        #endif
    }

    #if canImport(FoundationNetworking)
        /// On Linux, "the client's context" is Foundation's one serial queue being held: a handler's
        /// answer is delivered by the handler's thread while it holds that queue. Shown from outside:
        /// another thread that makes a task meanwhile (which needs the queue) waits until the
        /// delivery is over.
        func testADeliveryHoldsFoundationsQueue() async throws {
            let other = URLSession(configuration: .ephemeral)  // its tasks are made, never resumed
            // For each delivery: whether a task made meanwhile on another thread was only made once
            // the delivery was over.
            let madeAfterDelivery = Shared<[Bool]>([])
            let made = DispatchGroup()
            MockURLProtocol.clientCallCheck = { _ in
                let deliveryOver = Shared(false)
                let started = DispatchSemaphore(value: 0)
                made.enter()
                Thread.detachNewThread {
                    started.signal()
                    _ = other.dataTask(with: URLRequest(url: URL(fileURLWithPath: "/dev/null")))
                    madeAfterDelivery.update { $0.append(deliveryOver.current) }
                    made.leave()
                }
                started.wait()
                Thread.sleep(forTimeInterval: 0.2)
                deliveryOver.update { $0 = true }
            }
            defer { MockURLProtocol.clientCallCheck = nil }

            let mocks = MockRegistry()
            mocks.register("https://api.example.com/later") { _ in
                Thread.sleep(forTimeInterval: 0.2)  // startLoading has returned by now
                return .text("later")
            }
            mocks.register(.url("https://api.example.com/inline"), sequence: [.text("inline")])

            let replies = try await withWatchdog(20) {
                [
                    try await send(mocks.session, "GET", "https://api.example.com/later"),
                    try await send(mocks.session, "GET", "https://api.example.com/inline"),
                ]
            }
            MockURLProtocol.clientCallCheck = nil
            XCTAssertEqual(replies.map(\.text), ["later", "inline"])
            XCTAssertEqual(made.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(
                madeAfterDelivery.current, [true, true], "a task was made while an answer was being delivered")
        }
    #endif
}

/// Runs handlers at once, on the thread that asks (inside `startLoading`, for a first request).
private struct InlineRunner: HandlerRunner {
    func submit(_ work: @escaping @Sendable () -> Void) { work() }

    func submit(
        _ work: @escaping @Sendable () async -> Void, started: @escaping @Sendable (Task<Void, Never>) -> Void
    ) {
        started(Task { await work() })
    }
}
