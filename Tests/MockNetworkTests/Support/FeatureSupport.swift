import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers shared by the feature tests (matching, sequences, latency, cancellation, redirects,
// streaming, downloads, fixtures, app stubs, curl commands).

/// What a request came back with.
struct Reply {
    let status: Int
    let body: Data
    let response: HTTPURLResponse

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// Sends one request through `session` with `data(for:)`.
func send(
    _ session: URLSession, _ method: String = "GET", _ address: String,
    headers: [String: String] = [:], body: Data? = nil,
    file: StaticString = #filePath, line: UInt = #line
) async throws -> Reply {
    var request = URLRequest(url: try url(address, file: file, line: line))
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await session.data(for: request)
    let http = try XCTUnwrap(response as? HTTPURLResponse, "not an HTTP response", file: file, line: line)
    return Reply(status: http.statusCode, body: data, response: http)
}

/// A value behind a lock, for what handlers and delegates (on Foundation's threads) hand to the test.
final class Shared<Value>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { update { $0 } }
}

/// A session delegate that writes down every event it gets, in order.
final class EventRecorder: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is `Shared`
    enum Event: Equatable {
        case response(Int)
        case data(Data)
        case complete(URLError.Code?)
        case completeWithOtherError(String)
    }

    let events = Shared<[Event]>([])
    /// When each event came (uptime, nanoseconds), in the same order.
    let times = Shared<[UInt64]>([])
    private let done = Shared<XCTestExpectation?>(nil)
    private let onData = Shared<(@Sendable () -> Void)?>(nil)

    /// Called after each piece of data is noted.
    func whenData(_ body: @escaping @Sendable () -> Void) { onData.update { $0 = body } }

    /// When `completion(_:)` was called, just before the test resumes its task (uptime, nanoseconds).
    private let started = Shared<UInt64?>(nil)

    /// The times pieces of data came, in seconds after the task was set up (`completion(_:)`, called
    /// just before `resume()`). MockNetwork starts a stream's clock later than that, when it sends the
    /// response, so piece n can never come before n intervals after this mark: a bound with no slack.
    /// (The delegate's own response event is no mark: its queue may run it a moment after MockNetwork
    /// sent it, so the pieces after it would look early by that moment.)
    var chunkOffsets: [Double] {
        let (all, times) = (events.current, times.current)
        guard let start = started.current else { return [] }
        return zip(all, times).compactMap { if case .data = $0 { Double($1 - start) / 1e9 } else { nil } }
    }

    var last: Event? { events.current.last }

    private func note(_ event: Event) {
        let now = DispatchTime.now().uptimeNanoseconds
        events.update { $0.append(event) }
        times.update { $0.append(now) }
    }

    /// An expectation fulfilled when a task completes.
    func completion(_ test: XCTestCase) -> XCTestExpectation {
        let expectation = test.expectation(description: "task completes")
        done.update { $0 = expectation }
        started.update { $0 = DispatchTime.now().uptimeNanoseconds }
        return expectation
    }

    var chunks: [Data] {
        events.current.compactMap { if case .data(let data) = $0 { return data } else { return nil } }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        note(.response((response as? HTTPURLResponse)?.statusCode ?? -1))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        note(.data(data))
        onData.current?()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        switch error {
        case nil: note(.complete(nil))
        case let error as URLError: note(.complete(error.code))
        case let error?: note(.completeWithOtherError(String(describing: error)))
        }
        done.update { $0 }?.fulfill()
    }
}

/// A directory laid out like a resource bundle, removed at the end of the test.
func temporaryBundle(
    _ test: XCTestCase, files: [String: String], file: StaticString = #filePath, line: UInt = #line
) throws -> Bundle {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("MockNetworkTests-\(UUID().uuidString)")
    for (path, contents) in files {
        let fileURL = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: fileURL)
    }
    test.addTeardownBlock { try? FileManager.default.removeItem(at: root) }
    return try XCTUnwrap(Bundle(path: root.path), "no bundle at \(root.path)", file: file, line: line)
}

/// Seconds since `start`.
func seconds(since start: Date) -> TimeInterval { Date().timeIntervalSince(start) }
