// What every group of rows uses: the floor's protocol, delegates that count and time a body,
// a lock, and timing helpers.

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The floor: the minimal protocol most tutorials write, with a fixed 200.
final class TutorialURLProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Data("ok".utf8))
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

/// A session data delegate that counts the bytes of each task, for the stream rows.
final class ByteCounter: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is in `state`'s lock
    private let state = Locked((bytes: 0, done: CheckedContinuation<Int, Never>?.none))

    /// Loads `url` on `session` `times` times, one after the other; checks each body's 200 bytes.
    func load(_ url: URL, on session: URLSession, times: Int) async throws {
        for _ in 0..<times {
            let bytes = await withCheckedContinuation { continuation in
                state.withLock { $0 = (0, continuation) }
                session.dataTask(with: url).resume()
            }
            guard bytes == 200 else { throw BenchmarkError(description: "a stream of \(bytes) bytes, not 200") }
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.bytes += data.count }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (bytes, done) = state.withLock { state in
            defer { state.done = nil }
            return (state.bytes, state.done)
        }
        done?.resume(returning: bytes)
    }
}

/// A session data delegate that notes when each piece of a body comes, after the response.
final class PieceClock: NSObject, URLSessionDataDelegate, @unchecked Sendable {  // state is in `state`'s lock
    private let state = Locked(
        (start: UInt64(0), offsets: [Double](), done: CheckedContinuation<[Double], Never>?.none))

    /// Loads `url` once; returns when each piece came, in seconds after the response.
    func load(_ url: URL, on session: URLSession) async throws -> [Double] {
        await withCheckedContinuation { continuation in
            state.withLock { $0 = (0, [], continuation) }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.start = now }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { $0.offsets.append(Double(now - $0.start) / 1e9) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (offsets, done) = state.withLock { state in
            defer { state.done = nil }
            return (state.offsets, state.done)
        }
        done?.resume(returning: offsets)
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {  // `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}

/// How long `body` takes.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func fetch(_ session: URLSession, _ url: URL, times: Int) async throws {
    for _ in 0..<times {
        let (data, _) = try await session.data(from: url)
        guard data.count == 2 else { throw BenchmarkError(description: "unexpected body of \(data.count) bytes") }
    }
}

/// Resident memory in bytes (Linux: /proc/self/statm; elsewhere: the peak, from getrusage).
func residentBytes() -> Int {
    #if os(Linux)
        if let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) {
            let fields = text.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { return pages * Int(sysconf(Int32(_SC_PAGESIZE))) }
        }
        return 0
    #else
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
    #endif
}

/// Kept for row 1q's delegate queue (an `OperationQueue` does not keep its `underlyingQueue`).
let delegateDispatchQueue = DispatchQueue(label: "MockNetworkBenchmark.delegate")

/// The tutorials' protocol on a session without cache or cookie storage, as MockNetwork's session
/// is: URLSession's own cost, the floor for MockNetwork's.
func floorConfiguration() -> URLSessionConfiguration {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [TutorialURLProtocol.self]
    configuration.urlCache = nil
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    return configuration
}

/// The URL every request row asks for.
let target = URL(string: "https://api.example.com/target")!
