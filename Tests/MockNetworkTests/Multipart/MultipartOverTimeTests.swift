import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `.multipart(_:every:)`: a `multipart/mixed` answer over time, one part a piece, for any API (the
/// GraphQL answers over time are built the same way).
final class MultipartOverTimeTests: XCTestCase {
    private let address = "https://api.example.com/feed"

    private let parts = ["one", "two", "three"].map {
        MultipartPart(headers: ["Content-Type": "text/plain"], body: Data($0.utf8))
    }

    func testEachPartComesInAPieceOfItsOwnInOrder() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { [parts] _ in .multipart(parts, boundary: "B", every: .milliseconds(30)) }
        let recorder = EventRecorder()
        let arrived = (1...3).map { expectation(description: "part \($0)") }
        recorder.whenData {
            let count = recorder.chunks.count
            if count <= arrived.count { arrived[count - 1].fulfill() }
        }
        let session = URLSession(configuration: mocks.configuration, delegate: recorder, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let done = recorder.completion(self)
        session.dataTask(with: try url(address)).resume()
        await fulfillment(of: arrived + [done], timeout: 10, enforceOrder: true)

        XCTAssertEqual(
            recorder.chunks.map { String(decoding: $0, as: UTF8.self) },
            [
                "\r\n--B\r\nContent-Type: text/plain\r\n\r\none\r\n--B",
                "\r\nContent-Type: text/plain\r\n\r\ntwo\r\n--B",
                "\r\nContent-Type: text/plain\r\n\r\nthree\r\n--B--\r\n",
            ])
        // Piece n can never come before n intervals after the task was set up: over time, not at once.
        let offsets = recorder.chunkOffsets
        XCTAssertEqual(offsets.count, 3)
        for (index, offset) in offsets.enumerated() {
            XCTAssertGreaterThanOrEqual(offset, 0.03 * Double(index), "piece \(index + 1)")
        }
        XCTAssertEqual(recorder.events.current.first, .response(200))
        XCTAssertEqual(recorder.last, .complete(nil))
    }

    /// `data(for:)` gets the whole body at the end, the same parts as the answer all at once.
    func testTheWholeBodyReadsAsTheSameParts() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { [parts] _ in .multipart(parts, every: .milliseconds(5)) }
        mocks.register(.url(address + "/whole")) { [parts] _ in .multipart(parts) }

        let (paced, pacedResponse) = try await mocks.session.data(from: try url(address))
        let (whole, _) = try await mocks.session.data(from: try url(address + "/whole"))
        XCTAssertEqual(paced, whole)
        let response = try XCTUnwrap(pacedResponse as? HTTPURLResponse)
        let type = try XCTUnwrap(response.value(forHTTPHeaderField: "Content-Type"))
        XCTAssertEqual(type, #"multipart/mixed; boundary="mocknetwork-boundary""#)
        XCTAssertNil(response.value(forHTTPHeaderField: "Content-Length"))
        XCTAssertEqual(try MultipartPart.parts(in: paced, contentType: type).map(\.text), ["one", "two", "three"])
        XCTAssertThrowsError(try MockResponse.multipart(parts, every: .milliseconds(-1)).validated()) { error in
            XCTAssertTrue("\(error)".contains("is negative"), "\(error)")
        }
    }
}
