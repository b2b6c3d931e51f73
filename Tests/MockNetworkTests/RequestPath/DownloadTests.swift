import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Download tasks. Linux's Foundation crashes when a custom protocol answers one (it force-unwraps
/// a file location it never makes), so MockNetwork fails them before answering, with
/// `MockNetworkError.downloadUnsupported` and a failure for the test. Failing first was measured
/// safe for every form below; answering is what crashes.
final class DownloadTests: XCTestCase {
    private let file = "https://api.example.com/files/report.pdf"

    private var expectedMessage: String {
        "MockNetwork: download tasks (\(file)) cannot be mocked on Linux: its Foundation crashes when a "
            + "custom protocol answers one. Load the data with data(for:) or dataTask(with:) instead, "
            + "and write it to a file yourself if you need one; or, where the client chooses the task "
            + "(Alamofire's download), serve the registry with MockServer (MockNetworkServer) and point "
            + "the client at its URL: a download over real HTTP works."
    }

    /// What the message offers works: a download task of a plain session, pointed at the registry's
    /// MockServer, gets the handler's answer in a file.
    func testADownloadFromTheRegistrysServerWorks() async throws {
        let mocks = registry()
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let saved = Shared<Data?>(nil)
        let done = expectation(description: "downloaded")
        session.downloadTask(with: server.url("/files/report.pdf")) { location, _, _ in
            saved.update { $0 = location.flatMap { try? Data(contentsOf: $0) } }
            // Foundation leaves its download in the temporary folder on Linux.
            if let location { try? FileManager.default.removeItem(at: location) }
            done.fulfill()
        }.resume()
        await fulfillment(of: [done], timeout: 10)
        XCTAssertEqual(saved.current, Data("%PDF-1.7".utf8))
    }

    /// A registry with a handler for `file`, which a download must still not reach.
    private func registry() -> MockRegistry {
        let mocks = MockRegistry()
        mocks.register(.url(file)) { _ in .data(Data("%PDF-1.7".utf8)) }
        return mocks
    }

    #if canImport(FoundationNetworking)
        func testCompletionDownloadTaskFailsWithDownloadUnsupported() async throws {
            let mocks = registry()
            let outcome = Shared<(location: URL?, response: URLResponse?, error: (any Error)?)>((nil, nil, nil))
            let done = expectation(description: "completion")
            mocks.session.downloadTask(with: try url(file)) { location, response, error in
                outcome.update { $0 = (location, response, error) }
                done.fulfill()
            }.resume()
            await fulfillment(of: [done], timeout: 5)

            XCTAssertEqual(outcome.current.error.flatMap(MockNetworkError.init), .downloadUnsupported(file))
            XCTAssertNil(outcome.current.location)
            XCTAssertNil(outcome.current.response)
            XCTAssertEqual(mocks.failures.map(\.message), [expectedMessage])
            XCTAssertEqual(mocks.callCount(for: file), 0, "the handler is not asked")
            XCTAssertEqual(mocks.requests, [], "a download is not recorded as a request")
        }

        func testAsyncDownloadForAndFromFailWithDownloadUnsupported() async throws {
            let mocks = registry()
            let forError = await thrownError {
                try await mocks.session.download(for: URLRequest(url: try url(self.file)))
            }
            let fromError = await thrownError { try await mocks.session.download(from: try url(self.file)) }

            XCTAssertEqual(forError.flatMap(MockNetworkError.init), .downloadUnsupported(file))
            XCTAssertEqual(fromError.flatMap(MockNetworkError.init), .downloadUnsupported(file))
            XCTAssertEqual(mocks.failures.map(\.message), [expectedMessage, expectedMessage])
        }

        func testDownloadTaskOnASessionWithADownloadDelegateFailsWithoutACrash() async throws {
            let mocks = registry()
            let delegate = DownloadRecorder()
            let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            let done = expectation(description: "didCompleteWithError")
            delegate.done.update { $0 = done }

            session.downloadTask(with: try url(file)).resume()
            await fulfillment(of: [done], timeout: 5)

            XCTAssertEqual(delegate.events.current, ["complete: \(MockNetworkError.downloadUnsupported(file))"])
            XCTAssertEqual(mocks.failures.count, 1)
        }

        func testManyDownloadsInARowFailCleanly() async throws {
            let mocks = registry()
            for _ in 0..<100 {
                let error = await thrownError { try await mocks.session.download(from: try url(self.file)) }
                XCTAssertEqual(error.flatMap(MockNetworkError.init), .downloadUnsupported(file))
            }
            XCTAssertEqual(mocks.failures.count, 100)
            // The session is still good for data.
            let (data, _) = try await mocks.session.data(from: try url(file))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "%PDF-1.7")
        }
    #else
        func testDownloadIsAnsweredIntoAFile() async throws {
            let mocks = registry()
            let (location, response) = try await mocks.session.download(from: try url(file))
            XCTAssertEqual(try status(response), 200)
            XCTAssertEqual(try Data(contentsOf: location), Data("%PDF-1.7".utf8))
        }
    #endif
}

/// A download delegate that writes down what it is told.
private final class DownloadRecorder: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {  // state is `Shared`
    let events = Shared<[String]>([])
    let done = Shared<XCTestExpectation?>(nil)

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        events.update { $0.append("finished: \(location.path)") }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        events.update { $0.append("complete: \(error.map { String(describing: $0) } ?? "no error")") }
        done.current?.fulfill()
    }
}
