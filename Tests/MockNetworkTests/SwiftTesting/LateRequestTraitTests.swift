import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a `.mockNetwork` test leaves running belongs to it: a task's late request and a body still
/// arriving fail that test, every time, and nothing of them reaches the next.
@Suite struct LateRequestTraitTests {
    static let address = "https://api.example.com/late"

    /// Whether `issue` is the report of the unmatched request to `address`.
    static func reportsTheLateRequest(_ issue: Issue) -> Bool {
        issue.comments.map(\.rawValue).joined().contains("no handler for GET \(address)")
    }

    /// A task that sleeps 100 or 300 ms, then makes its request: the test fails for it in 10 of 10
    /// rounds (0 of 5 before: the end gave up on a task that had started and made no request yet).
    @Test(arguments: [100, 300]) func aTaskThatSleepsBeforeItsRequestFailsItsTest(milliseconds: Int) async throws {
        let test = try #require(Test.current)
        let url = try #require(URL(string: Self.address))
        for _ in 0..<10 {
            // `withKnownIssue` fails when no issue is recorded: a round that passes silently fails.
            try await withKnownIssue {
                try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                    let session = MockRegistry.current.session
                    Task {
                        try await Task.sleep(for: .milliseconds(milliseconds))
                        _ = try? await session.data(from: url)
                    }
                }
            } matching: {
                Self.reportsTheLateRequest($0)
            }
        }
    }

    /// A task a handler starts, whose request comes 5 ms later: the test fails for it in 10 of 10
    /// rounds (it was not seen: handlers' tasks did not carry the test's witness).
    @Test func aTaskAHandlerStartsFailsItsTest() async throws {
        let test = try #require(Test.current)
        let url = try #require(URL(string: Self.address))
        for _ in 0..<10 {
            try await withKnownIssue {
                try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                    let mocks = MockRegistry.current
                    let session = mocks.session
                    mocks.register("https://api.example.com/first") { _ in
                        Task {
                            try await Task.sleep(for: .milliseconds(5))
                            _ = try? await session.data(from: url)
                        }
                        return .text("first")
                    }
                    _ = try await session.data(from: try #require(URL(string: "https://api.example.com/first")))
                }
            } matching: {
                Self.reportsTheLateRequest($0)
            }
        }
    }

    /// A body that arrives over time (1,000 pieces, 100 s) and that the test leaves arriving after its first
    /// piece: the test fails for the request
    /// still in flight, the body ends then with an error that says why, and no piece arrives after the
    /// test (it went on arriving during the next test).
    @Test func aStreamLeftRunningFailsItsTestAndStopsWithIt() async throws {
        let test = try #require(Test.current)
        let url = try #require(URL(string: "https://api.example.com/stream"))
        let events = Shared<[String]>([])
        let completed = Tally()
        let delegate = RecordingDelegate(events: events, completed: completed)
        let session = Shared<URLSession?>(nil)
        defer { session.current?.invalidateAndCancel() }
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register(.url(url)) { _ in .streamed((1...1_000).map(String.init), every: .milliseconds(100)) }
                let streaming = URLSession(
                    configuration: mocks.session.configuration, delegate: delegate, delegateQueue: nil)
                session.update { $0 = streaming }
                streaming.dataTask(with: url).resume()
                _ = await onOwnThread { delegate.firstPiece.wait(for: 1, upTo: 10) }
            }
        } matching: { issue in
            issue.comments.map(\.rawValue).joined().contains(
                "1 request was still in flight when the test ended: GET https://api.example.com/stream")
        }
        events.update { $0.append("test ended") }
        #expect(await onOwnThread { completed.wait(for: 1, upTo: 10) }, "the stream's task did not complete")
        let seen = events.current
        let ended = try #require(seen.firstIndex(of: "test ended"))
        #expect(!seen[ended...].contains { $0.hasPrefix("piece") }, "pieces after the test ended: \(seen)")
        let completion = seen.first { $0.hasPrefix("completed:") }
        #expect(
            completion?.contains("the test that owns this registry ended while this request was still open") == true,
            "\(seen)")
    }
}

/// Notes each piece and the end of a data task, in order.
final class RecordingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let events: Shared<[String]>
    let completed: Tally
    let firstPiece = Tally()

    init(events: Shared<[String]>, completed: Tally) {
        self.events = events
        self.completed = completed
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        events.update { $0.append("piece \(String(decoding: data, as: UTF8.self))") }
        firstPiece.add()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        events.update { $0.append("completed: \(error?.localizedDescription ?? "no error")") }
        completed.add()
    }
}
