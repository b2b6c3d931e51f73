import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class StreamingTests: XCTestCase {
    private let stream = "https://api.example.com/stream"
    /// Ten bytes, sent in pieces of four: 4 + 4 + 2.
    private let body = Data((0..<10).map { UInt8($0) })

    private func chunkedRegistry(size: Int = 4) -> MockRegistry {
        let mocks = MockRegistry()
        let body = self.body
        mocks.register(.url(stream)) { _ in MockResponse.data(body).chunked(into: size) }
        return mocks
    }

    /// A session on `mocks` whose delegate is `recorder`, invalidated at the end of the test.
    private func delegateSession(_ mocks: MockRegistry, _ recorder: EventRecorder) -> URLSession {
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        addTeardownBlock { session.finishTasksAndInvalidate() }
        return session
    }

    func testSessionDataDelegateReceivesTheBodyChunkByChunk() async throws {
        let mocks = chunkedRegistry()
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)

        session.dataTask(with: try url(stream)).resume()
        await fulfillment(of: [done], timeout: 5)

        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is; Apple's may coalesce them.
            XCTAssertEqual(recorder.chunks.map(\.count), [4, 4, 2])
            XCTAssertEqual(
                recorder.events.current,
                [.response(200), .data(body[0..<4]), .data(body[4..<8]), .data(body[8..<10]), .complete(nil)])
        #else
            XCTAssertGreaterThan(recorder.chunks.count, 1, "more than one delivery when asked")
            XCTAssertEqual(recorder.events.current.first, .response(200))
            XCTAssertEqual(recorder.events.current.last, .complete(nil))
        #endif
        XCTAssertEqual(recorder.chunks.reduce(Data(), +), body)
    }

    func testUploadTaskOnADelegateSessionReceivesChunksToo() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(stream), method: "POST") { request in
            MockResponse.data(request.httpBody ?? Data()).chunked(into: 3)
        }
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)
        var request = URLRequest(url: try url(stream))
        request.httpMethod = "POST"

        session.uploadTask(with: request, from: Data("abcdefgh".utf8)).resume()
        await fulfillment(of: [done], timeout: 5)

        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is; Apple's may coalesce them.
            XCTAssertEqual(recorder.chunks.map { String(decoding: $0, as: UTF8.self) }, ["abc", "def", "gh"])
        #else
            // Apple's URL loading may hand an upload task to a protocol without its body: then it fails
            // with `uploadBodyUnreachable` (code 10) rather than answer an empty body.
            if case .completeWithOtherError(let error)? = recorder.events.current.last {
                XCTAssertTrue(error.contains("MockNetwork.MockNetworkError"), error)
                XCTAssertEqual(recorder.chunks, [])
                _ = mocks.takeFailures()
            } else {
                XCTAssertEqual(recorder.chunks.reduce(Data(), +), Data("abcdefgh".utf8))
            }
        #endif
    }

    func testDataForGetsEveryByteOnAPlainSession() async throws {
        let mocks = chunkedRegistry()
        let (data, response) = try await mocks.session.data(from: try url(stream))
        XCTAssertEqual(try status(response), 200)
        XCTAssertEqual(data, body)
    }

    func testDataForGetsEveryByteOnASessionWithADataDelegate() async throws {
        let mocks = chunkedRegistry()
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)

        let (data, _) = try await session.data(from: try url(stream))
        XCTAssertEqual(data, body, "every byte, not only the last chunk")
    }

    func testDataForWithATaskDelegateGetsEveryByte() async throws {
        let mocks = chunkedRegistry()
        let recorder = EventRecorder()

        let (data, _) = try await mocks.session.data(for: URLRequest(url: try url(stream)), delegate: recorder)
        XCTAssertEqual(data, body)
    }

    func testCompletionHandlerGetsEveryByteOnPlainAndDelegateSessions() async throws {
        let mocks = chunkedRegistry()
        let recorder = EventRecorder()
        let sessions = [mocks.session, delegateSession(mocks, recorder)]
        for (index, session) in sessions.enumerated() {
            let received = Shared<Data?>(nil)
            let done = expectation(description: "completion \(index)")
            session.dataTask(with: try url(stream)) { data, _, _ in
                received.update { $0 = data }
                done.fulfill()
            }.resume()
            await fulfillment(of: [done], timeout: 5)
            XCTAssertEqual(received.current, body, index == 0 ? "plain session" : "session with a data delegate")
        }
        XCTAssertEqual(recorder.chunks, [], "a completion handler's data does not go to the delegate")
    }

    func testChunkAtLeastAsLargeAsTheBodyArrivesInOnePiece() async throws {
        let mocks = chunkedRegistry(size: 10)
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)

        session.dataTask(with: try url(stream)).resume()
        await fulfillment(of: [done], timeout: 5)
        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is; Apple's may coalesce them.
            XCTAssertEqual(recorder.chunks.map(\.count), [10])
        #else
            XCTAssertEqual(recorder.chunks.reduce(Data(), +).count, 10)
        #endif
    }

    func testOneByteChunksOfALargerBody() async throws {
        let mocks = MockRegistry()
        let large = Data((0..<1000).map { UInt8($0 % 251) })
        mocks.register(.url(stream)) { _ in MockResponse.data(large).chunked(into: 1) }
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)

        session.dataTask(with: try url(stream)).resume()
        await fulfillment(of: [done], timeout: 10)
        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is; Apple's may coalesce them.
            XCTAssertEqual(recorder.chunks.count, 1000)
        #else
            XCTAssertGreaterThan(recorder.chunks.count, 1, "more than one delivery when asked")
        #endif
        XCTAssertEqual(recorder.chunks.reduce(Data(), +), large)

        let (data, _) = try await session.data(from: try url(stream))
        XCTAssertEqual(data, large)
    }

    func testDelayedChunkedResponseStillArrivesInChunks() async throws {
        let mocks = MockRegistry()
        let body = self.body
        mocks.register(.url(stream)) { _ in MockResponse.data(body).chunked(into: 5).delayed(by: 0.1) }
        let recorder = EventRecorder()
        let session = delegateSession(mocks, recorder)
        let done = recorder.completion(self)

        session.dataTask(with: try url(stream)).resume()
        await fulfillment(of: [done], timeout: 5)
        #if canImport(FoundationNetworking)
            // Exact pieces: Linux's Foundation passes each on as it is; Apple's may coalesce them.
            XCTAssertEqual(recorder.chunks.map(\.count), [5, 5])
        #else
            XCTAssertEqual(recorder.chunks.reduce(Data(), +).count, 10)
        #endif
    }
}
