import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A store a handler awaits, as a test's fake backend might be.
private actor UserStore {
    private var name = "Ada"
    func rename(_ name: String) { self.name = name }
    func user() -> String { #"{"name":"\#(name)"}"# }
}

/// Handlers that `await`: answered as synchronous ones are, and cancelled when the request ends first.
final class AsyncHandlerTests: XCTestCase {
    private let address = "https://api.example.com/user"

    func testAnAsyncHandlerWhoseOwnTaskWasCancelledStillAnswers() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/self-cancelled") { _ async throws in
            // Something inside the handler cancels the task it runs in; the request is still open.
            withUnsafeCurrentTask { $0?.cancel() }
            return .text("still here")
        }
        var request = URLRequest(url: try url("https://api.example.com/self-cancelled"))
        request.timeoutInterval = 5
        let (session, limited) = (mocks.session, request)
        let (data, _) = try await withWatchdog(20) { try await session.data(for: limited) }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "still here")
    }

    func testAnAsyncHandlerAnswers() async throws {
        let mocks = MockRegistry()
        let store = UserStore()
        await store.rename("Grace")
        mocks.register(.url(address)) { _ async throws in .json(await store.user()) }

        let (data, response) = try await mocks.session.data(from: try url(address))

        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"name":"Grace"}"#)
        XCTAssertEqual(try status(response), 200)
        XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [address])
    }

    func testEveryFormTakesAnAsyncHandler() async throws {
        let mocks = MockRegistry()
        let store = UserStore()
        mocks.register(.url(try url("https://api.example.com/a"))) { _ in .text(await store.user()) }
        mocks.register(.url("https://api.example.com/b").method("POST")) { request in
            .text(String(decoding: request.httpBody ?? Data(), as: UTF8.self) + (await store.user()))
        }
        var post = URLRequest(url: try url("https://api.example.com/b"))
        post.httpMethod = "POST"
        post.httpBody = Data("body:".utf8)

        let (a, _) = try await mocks.session.data(from: try url("https://api.example.com/a"))
        let (b, _) = try await mocks.session.data(for: post)

        XCTAssertEqual(String(decoding: a, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertEqual(String(decoding: b, as: UTF8.self), #"body:{"name":"Ada"}"#)
    }

    func testAnAsyncHandlersErrorFailsTheRequest() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ async throws -> MockResponse in
            await Task.yield()
            throw URLError(.notConnectedToInternet)
        }

        let error = await thrownError { _ = try await mocks.session.data(from: try url(self.address)) }

        XCTAssertEqual((error as? URLError)?.code, .notConnectedToInternet)
    }

    func testAnAsyncHandlerMayMakeARequestOfItsOwn() async throws {
        let mocks = MockRegistry()
        mocks.register("https://auth.example.com/token") { _ in .text("t0k3n") }
        mocks.register(.url(address)) { _ async throws in
            let (token, _) = try await mocks.session.data(from: URL(string: "https://auth.example.com/token")!)
            return .text("user for " + String(decoding: token, as: UTF8.self))
        }

        let (data, _) = try await withWatchdog(10) { [address] in try await mocks.session.data(from: try url(address)) }

        XCTAssertEqual(String(decoding: data, as: UTF8.self), "user for t0k3n")
    }

    /// Cancelling the caller's task cancels the handler's: it sees `isCancelled` (its sleep throws).
    func testCancellingTheRequestCancelsTheHandler() async throws {
        let mocks = MockRegistry()
        let started = expectation(description: "handler started")
        let cancelled = expectation(description: "handler saw the cancel")
        mocks.register(.url(address)) { _ async throws -> MockResponse in
            started.fulfill()
            do {
                try await Task.sleep(nanoseconds: 60_000_000_000)
            } catch is CancellationError {
                XCTAssertTrue(Task.isCancelled)
                cancelled.fulfill()
                throw CancellationError()
            }
            return .text("too late")
        }
        let address = self.address
        let request = Task { try await mocks.session.data(from: try url(address)) }

        await fulfillment(of: [started], timeout: 10)
        request.cancel()

        await fulfillment(of: [cancelled], timeout: 10)
        let error = await thrownError { _ = try await request.value }
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
    }

    /// The request's timeout ends it with `.timedOut`, and cancels the handler still running.
    func testTheTimeoutEndsTheRequestAndCancelsTheHandler() async throws {
        let mocks = MockRegistry()
        let cancelled = expectation(description: "handler saw the cancel")
        mocks.register(.url(address)) { _ async throws -> MockResponse in
            try? await Task.sleep(nanoseconds: 60_000_000_000)
            if Task.isCancelled { cancelled.fulfill() }
            return .text("too late")
        }
        var request = URLRequest(url: try url(address))
        request.timeoutInterval = 0.2

        let error = await thrownError { _ = try await mocks.session.data(for: request) }

        XCTAssertTimedOut(
            error,
            message: "MockNetwork: the handler for GET \(address) did not answer within the request's timeout of 0.2 s."
        )
        await fulfillment(of: [cancelled], timeout: 10)
    }

    /// A closure that does not `await` still picks the synchronous form (and its speed): it runs
    /// on a thread of MockNetwork's, in no task; an `async` one runs in a task.
    func testASynchronousClosureStillPicksTheSynchronousForm() async throws {
        let mocks = MockRegistry()
        let inTask = Shared<[String: Bool]>([:])
        mocks.register("https://api.example.com/sync") { _ in
            withUnsafeCurrentTask { task in inTask.update { $0["sync"] = task != nil } }
            return .text("sync")
        }
        mocks.register("https://api.example.com/async") { _ in
            await Task.yield()
            withUnsafeCurrentTask { task in inTask.update { $0["async"] = task != nil } }
            return .text("async")
        }

        _ = try await mocks.session.data(from: try url("https://api.example.com/sync"))
        _ = try await mocks.session.data(from: try url("https://api.example.com/async"))

        XCTAssertEqual(inTask.current, ["sync": false, "async": true])
    }
}
