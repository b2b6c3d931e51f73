import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A timeout's message says which timeout ended the request, and why a delay shorter than it still
/// did: three redirect hops of 0.4 s each under a resource timeout of 1 s read "the response's delay
/// of 0.4 s is longer than the request's timeout of 1.0 s" before; a gap as long as the timeout read
/// "longer than" it.
final class TimeoutMessageTests: XCTestCase {
    func testADelayPastWhatIsLeftOfTheResourceTimeoutSaysSo() async throws {
        let mocks = MockRegistry()
        for (from, to) in [("a", "b"), ("b", "c")] {
            mocks.register("https://api.example.com/\(from)") { _ in
                MockResponse.redirect(to: "/\(to)").delayed(by: .milliseconds(400))
            }
        }
        mocks.register("https://api.example.com/c") { _ in MockResponse.text("c").delayed(by: .milliseconds(400)) }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForResource = 1
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let error = await thrownError { _ = try await session.data(from: try url("https://api.example.com/a")) }
        let message = (error as? URLError)?.localizedDescription ?? ""
        XCTAssertEqual((error as? URLError)?.code, .timedOut)
        XCTAssertTrue(
            message.hasPrefix(
                "MockNetwork: the response's delay of 0.4 s goes past the session's timeoutIntervalForResource of "
                    + "1 s: only 0."),
            message)
        XCTAssertTrue(
            message.hasSuffix(
                " s of it were left, the rest spent before this answer (on earlier redirects' delays, or in the handler)."
            ),
            message)
    }

    func testAStreamsGapAsLongAsTheTimeoutSaysAsLongAs() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/stream") { _ in
            .streamed(["a", "b"], every: .milliseconds(300))
        }
        var request = URLRequest(url: try url("https://api.example.com/stream"))
        request.timeoutInterval = 0.3
        let error = await thrownError { _ = try await mocks.session.data(for: request) }
        XCTAssertTimedOut(
            error,
            message: "MockNetwork: the body's next piece comes 0.3 s after the one before, as long as the request's "
                + "timeout of 0.3 s: a gap that long ends the request.")
    }
}
