import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Server-sent events framed as the WHATWG standard says, read back by a reader written from it.
final class ServerSentEventTests: XCTestCase {
    private let address = "https://api.example.com/v1/chat"

    func testFramingOfEveryField() throws {
        let event = ServerSentEvent(id: "42", event: "update", data: "line one\nline two", retry: 3_000, comment: "hi")
        XCTAssertEqual(
            try event.framed(), ": hi\nid: 42\nevent: update\nretry: 3000\ndata: line one\ndata: line two\n\n")
        XCTAssertEqual(try ServerSentEvent(data: "").framed(), "data:\n\n")
        XCTAssertEqual(try ServerSentEvent(data: " lead").framed(), "data:  lead\n\n")
        XCTAssertEqual(try ServerSentEvent(data: "a\r\nb\rc").framed(), "data: a\ndata: b\ndata: c\n\n")
        XCTAssertEqual(try ServerSentEvent(comment: "keep-alive").framed(), ": keep-alive\n\n")
    }

    func testFieldsTheFormatCannotCarryAreAClearError() {
        XCTAssertThrowsError(try ServerSentEvent(event: "a\nb", data: "x").framed()) { error in
            XCTAssertEqual(
                "\(error)",
                #"MockNetwork: the server-sent event's event "a\nb" holds a line break. Put line breaks only in "#
                    + "data (each line becomes a data: line) or in comment.")
        }
        XCTAssertThrowsError(try ServerSentEvent(id: "1\r2", data: "x").framed())
        XCTAssertThrowsError(try ServerSentEvent(data: "x", retry: -1).framed())
        XCTAssertThrowsError(try MockResponse.events([ServerSentEvent(id: "a\0b", data: "x")]).validated())
    }

    /// A delegate-based client reads the events as they come, and a reader of the standard parses them.
    func testAClientReadsTheEventsAsTheyCome() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in
            .events(
                [
                    .init(data: #"{"delta":"Hel"}"#),
                    .init(comment: "keep-alive"),
                    .init(id: "7", data: "multi\nline"),
                    .init(event: "done", data: "", retry: 1_500),
                ], every: .milliseconds(20))
        }
        let recorder = EventRecorder()
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)

        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: [done], timeout: 10)

        var reader = EventStreamReader()
        for chunk in recorder.chunks { reader.read(String(decoding: chunk, as: UTF8.self)) }
        XCTAssertEqual(
            reader.events,
            [
                .init(type: "message", data: #"{"delta":"Hel"}"#, lastEventID: ""),
                .init(type: "message", data: "multi\nline", lastEventID: "7"),
                .init(type: "done", data: "", lastEventID: "7"),
            ])
        XCTAssertEqual(reader.retry, 1_500)
        #if canImport(FoundationNetworking)
            XCTAssertEqual(recorder.chunks.count, 4, "one piece an event")
        #endif
        for (index, offset) in recorder.chunkOffsets.enumerated() {
            XCTAssertGreaterThanOrEqual(offset, Double(index) * 0.020, "event \(index) came early")
        }
        XCTAssertEqual(recorder.last, .complete(nil))
    }

    func testTheResponseIsAnEventStream() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .events([.init(data: "x")]) }

        let (data, response) = try await mocks.session.data(from: try url(address))

        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "text/event-stream")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Cache-Control"), "no-cache")
        XCTAssertNil(http.value(forHTTPHeaderField: "Content-Length"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "data: x\n\n")
    }
}
