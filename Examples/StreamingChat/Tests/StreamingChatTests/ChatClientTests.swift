import Foundation
import MockNetworkTesting
import StreamingChat
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The chat client against a mocked streaming API. No test sleeps: the stream's pace is
/// MockNetwork's, and the loading state is checked while the request is held.
final class ChatClientTests: MockNetworkTestCase {
    private let endpoint = "https://llm.example.com/v1/chat"
    private let events: [ServerSentEvent] = [
        .init(data: #"{"delta":"Hel"}"#),
        .init(comment: "keep-alive"),
        .init(data: #"{"delta":"lo"}"#),
        .init(event: "done", data: ""),
    ]

    private func client() throws -> ChatClient {
        let client = ChatClient(endpoint: try XCTUnwrap(URL(string: endpoint)), configuration: mocks.configuration)
        addTeardownBlock { client.close() }
        return client
    }

    func testAWholeStreamArrivesPieceByPiece() async throws {
        register(.url(endpoint), method: "POST") { [events] request in
            XCTAssertEqual(request.value(forHTTPHeaderField: "Accept"), "text/event-stream")
            XCTAssertEqual(String(decoding: request.httpBody ?? Data(), as: UTF8.self), #"{"prompt":"hi"}"#)
            return .events(events, every: .milliseconds(20))
        }

        var pieces: [String] = []
        for try await piece in try client().reply(to: "hi") { pieces.append(piece) }

        XCTAssertEqual(pieces, ["Hel", "lo"])
    }

    func testAStreamLostHalfWayFailsAfterTheFirstPiece() async throws {
        let first = try events[0].framed()
        register(.url(endpoint), method: "POST") { [events] _ in
            MockResponse.events(events, every: .milliseconds(10))
                .failing(after: first.utf8.count, with: URLError(.networkConnectionLost))
        }

        var pieces: [String] = []
        do {
            for try await piece in try client().reply(to: "hi") { pieces.append(piece) }
            XCTFail("the stream should fail")
        } catch {
            XCTAssertEqual((error as? URLError)?.code, .networkConnectionLost)
        }
        XCTAssertEqual(pieces, ["Hel"])
    }

    func testStoppingTheIterationCancelsTheRequest() async throws {
        // The second piece would come a minute later: only a cancel ends this request in time.
        register(.url(endpoint), method: "POST") { [events] _ in .events(events, every: .seconds(60)) }
        let ended = expectation(description: "the request ended")
        let code = Locked<URLError.Code?>(nil)
        let client = ChatClient(endpoint: try XCTUnwrap(URL(string: endpoint)), configuration: mocks.configuration) {
            error in
            code.set((error as? URLError)?.code)
            ended.fulfill()
        }
        addTeardownBlock { client.close() }

        var pieces: [String] = []
        for try await piece in client.reply(to: "hi") {
            pieces.append(piece)
            break
        }

        XCTAssertEqual(pieces, ["Hel"])
        await fulfillment(of: [ended], timeout: 10)
        XCTAssertEqual(code.get(), .cancelled)
    }

    @MainActor
    func testTheModelShowsItIsWaitingUntilTheFirstPiece() async throws {
        let gate = mocks.hold(endpoint, method: "POST")
        let model = ChatModel(client: try client())

        let sending = Task { await model.send("hi") }
        try await gate.arrived()
        XCTAssertTrue(model.isWaitingForReply)
        XCTAssertEqual(model.reply, "")

        gate.release(with: .events(events))
        await sending.value
        XCTAssertFalse(model.isWaitingForReply)
        XCTAssertEqual(model.reply, "Hello")
        XCTAssertNil(model.error)
    }
}

/// A value read and written from more than one thread.
private final class Locked<Value: Sendable>: @unchecked Sendable {  // `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
