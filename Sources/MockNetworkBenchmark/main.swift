// Measures what a mocked request costs, against the hand-written protocol of the tutorials.
//
//     swift run -c release MockNetworkBenchmark
//
// All rows come from one run, so their ratios compare like with like; absolute figures
// swing 2-3x between runs on a shared machine.

import Foundation
import MockNetwork

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

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

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

let arguments = CommandLine.arguments

// `MockNetworkBenchmark profile ROW COUNT`: only COUNT requests of one row (1n, 2, 2a or 2k), for
// callgrind: the instructions of one request are (total at COUNT − total at a smaller COUNT) / the difference.
if arguments.count == 4, arguments[1] == "profile", let count = Int(arguments[3]),
    let url = URL(string: "https://api.example.com/target")
{
    let registry = MockRegistry()
    switch arguments[2] {
    case "1n": break
    case "2": registry.register(url.absoluteString) { _ in try .text("ok") }
    case "2a": try registry.register(.url(url.absoluteString), sequence: Array(repeating: .text("ok"), count: count))
    case "2k": try registry.register(url.absoluteString, answer: .text("ok"))
    default:
        print("profile: no row \(arguments[2]); use 1n, 2, 2a or 2k")
        exit(2)
    }
    let session = arguments[2] == "1n" ? URLSession(configuration: floorConfiguration()) : registry.session
    try await fetch(session, url, times: count)
    exit(0)
}

let requests = arguments.count > 1 ? Int(arguments[1]) ?? 20_000 : 20_000
let handlers = 10_000
guard let target = URL(string: "https://api.example.com/target") else { exit(1) }

var rows: [(String, Double)] = []
func pad(_ text: String) -> String {
    text.count >= 58 ? text : text + String(repeating: " ", count: 58 - text.count)
}

@MainActor func report(_ name: String, _ microseconds: Double) {
    rows.append((name, microseconds))
    print(pad(name) + String(format: "%9.2f", microseconds))
}

do {
    print(
        "MockNetwork benchmark: \(requests) sequential data(from:) requests per row (median of 20 interleaved rounds), release build"
    )
    print(pad("row") + "   µs/req")

    // 1. The tutorials' protocol through an .ephemeral session.
    let tutorialConfiguration = URLSessionConfiguration.ephemeral
    tutorialConfiguration.protocolClasses = [TutorialURLProtocol.self]
    let tutorial = URLSession(configuration: tutorialConfiguration)

    // 1n. The same protocol through a session without cache or cookie storage, as MockNetwork's
    //     session is: URLSession's own cost, the floor for MockNetwork's.
    let bare = URLSession(configuration: floorConfiguration())

    // 1q. The same, with a delegate queue like MockNetwork's sessions' (serial, on a Dispatch queue
    //     of its own rather than the pool Swift concurrency shares): the floor with that setting too.
    let delegateQueue = OperationQueue()
    delegateQueue.maxConcurrentOperationCount = 1
    delegateQueue.underlyingQueue = delegateDispatchQueue
    let bareOwnQueue = URLSession(configuration: floorConfiguration(), delegate: nil, delegateQueue: delegateQueue)

    // 2. MockNetwork, one handler (a closure: it runs on a thread of MockNetwork's, and the answer
    //    comes back into `startLoading`).
    let one = MockRegistry()
    one.register(target.absoluteString) { _ in try .text("ok") }

    // 2a. MockNetwork, answers that run no user code (a sequence): found and delivered inline.
    let inline = MockRegistry()
    let okay = try MockResponse.text("ok")
    inline.register(.url(target.absoluteString), sequence: Array(repeating: okay, count: requests + 1_000))

    // 2k. MockNetwork, a constant answer registered without a closure: found and delivered inline.
    let constant = MockRegistry()
    constant.register(target.absoluteString, answer: okay)

    // 2b. MockNetwork, one handler run as the .mockNetwork trait runs it: in a task of the test's,
    //     on MockNetwork's task executor.
    let trait = MockRegistry()
    trait.register(target.absoluteString) { _ in try .text("ok") }
    // Made off the main actor, as a test's scope is.
    let runner = await Task.detached { TestTaskRunner() }.value
    trait.handlerRunner = runner

    // 2c. MockNetwork, one `async` handler: it runs in a task of its own, which the request could cancel.
    let asyncOne = MockRegistry()
    asyncOne.register(target.absoluteString) { _ async throws in try .text("ok") }

    // 3t. 1,000 path templates on the target's host (`/svc<n>/{id}/items`), and `/{page}` answering.
    let templates = MockRegistry()
    for index in 0..<1_000 {
        templates.register("https://api.example.com/svc\(index)/{id}/items") { _, _ in try .text("no") }
    }
    templates.register("https://api.example.com/{page}") { _, _ in try .text("ok") }

    // 5. Registering 10,000 handlers (and 3: the target registered last).
    let many = MockRegistry()
    let addresses = (0..<handlers).map { "https://api.example.com/items/\($0)?page=\($0 % 7)" }
    let registering = await seconds {
        for address in addresses {
            many.register(address) { _ in try .text("no") }
        }
        many.register(target.absoluteString) { _ in try .text("ok") }
    }

    // 3p-3r. Host and path patterns: 1,000 of them with a pattern answering, 10 with the last one
    //        answering, and 1,000 registered while an exact URL answers.
    let manyPatterns = MockRegistry()
    for index in 0..<1_000 {
        manyPatterns.register(.host("svc\(index).example.com", path: "/v1/*")) { _ in try .text("no") }
    }
    manyPatterns.register(.host("api.example.com", path: "/tar*")) { _ in try .text("ok") }
    let fewPatterns = MockRegistry()
    for index in 0..<9 {
        fewPatterns.register(.host("*.svc\(index).example.com", path: "/v1/*")) { _ in try .text("no") }
    }
    fewPatterns.register(.host("*.example.com", path: "/tar*")) { _ in try .text("ok") }
    let exactAmongPatterns = MockRegistry()
    for index in 0..<1_000 {
        exactAmongPatterns.register(.host("svc\(index).example.com", path: "/v1/*")) { _ in try .text("no") }
    }
    exactAmongPatterns.register(target.absoluteString) { _ in try .text("ok") }

    // Rows 1-3 run in interleaved rounds, so that a burst of load elsewhere on the machine hits
    // them alike; each row's figure is the median of its rounds.
    let sessions = [
        tutorial, one.session, many.session, inline.session, trait.session, manyPatterns.session, fewPatterns.session,
        exactAmongPatterns.session, bare, asyncOne.session, templates.session, constant.session, bareOwnQueue,
    ]
    for session in sessions { try await fetch(session, target, times: 500) }
    let rounds = 20
    var perRound: [[Double]] = Array(repeating: [], count: sessions.count)
    for round in 0..<rounds {
        // The order turns every round, so no row always runs right after the same other row.
        for offset in 0..<sessions.count {
            let row = (round + offset) % sessions.count
            let session = sessions[row]
            let time = try await seconds { try await fetch(session, target, times: requests / rounds) }
            perRound[row].append(time / Double(requests / rounds) * 1e6)
        }
    }
    func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    report("1 hand-written URLProtocol, .ephemeral session", median(perRound[0]))
    report("2 MockNetwork, 1 handler", median(perRound[1]))
    report("3 MockNetwork, 10,000 other handlers, target last", median(perRound[2]))
    report("2a MockNetwork, a sequence (no user code, inline)", median(perRound[3]))
    report("2b MockNetwork, 1 handler on the trait's path", median(perRound[4]))
    report("3p 1,000 host/path patterns, a pattern answers", median(perRound[5]))
    report("3q 10 patterns (wildcard hosts), the last answers", median(perRound[6]))
    report("3r 1,000 patterns registered, an exact URL answers", median(perRound[7]))
    report("1n hand-written URLProtocol, no cache or cookie storage", median(perRound[8]))
    report("2c MockNetwork, 1 async handler", median(perRound[9]))

    // 2s. A body in 100 pieces to a session data delegate (every piece its own didReceive data),
    //     against the same 200 bytes in one piece on the same kind of session (2d), interleaved.
    let streams = MockRegistry()
    let pieces = (0..<100).map { _ in Data("ok".utf8) }
    streams.register(target.absoluteString + "?stream") { _ in try .streamed(pieces, every: .zero) }
    streams.register(target.absoluteString + "?whole") { _ in try .data(pieces.reduce(Data(), +)) }
    let counter = ByteCounter()
    let delegateSession = URLSession(configuration: streams.configuration, delegate: counter, delegateQueue: nil)
    guard let streamURL = URL(string: target.absoluteString + "?stream"),
        let wholeURL = URL(string: target.absoluteString + "?whole")
    else { exit(1) }
    let streamRequests = max(requests / 10, 200)
    for url in [streamURL, wholeURL] { try await counter.load(url, on: delegateSession, times: 100) }
    var streamRounds: [[Double]] = [[], []]
    for round in 0..<rounds {
        for offset in 0..<2 {
            let row = (round + offset) % 2
            let url = row == 0 ? streamURL : wholeURL
            let time = try await seconds {
                try await counter.load(url, on: delegateSession, times: streamRequests / rounds)
            }
            streamRounds[row].append(time / Double(streamRequests / rounds) * 1e6)
        }
    }
    report("2s a 100-piece stream to a data delegate", median(streamRounds[0]))
    report("2d the same 200 bytes in one piece, data delegate", median(streamRounds[1]))
    report("3t 1,000 path templates, a template answers", median(perRound[10]))
    report("2k MockNetwork, a constant answer (no closure, inline)", median(perRound[11]))
    report("1q row 1n with a delegate queue like MockNetwork's", median(perRound[12]))

    // 2t. Timing: 10 streams of 20 pieces, one every 10 ms, to a data delegate; how late each piece
    //     came after its time (measured from the response's arrival at the delegate).
    let timed = MockRegistry()
    timed.register(target.absoluteString + "?timed") { _ in
        try .streamed((0..<20).map { _ in Data("ok".utf8) }, every: .milliseconds(10))
    }
    let clock = PieceClock()
    let timedSession = URLSession(configuration: timed.configuration, delegate: clock, delegateQueue: nil)
    guard let timedURL = URL(string: target.absoluteString + "?timed") else { exit(1) }
    var lateness: [Double] = []
    for _ in 0..<10 {
        let offsets = try await clock.load(timedURL, on: timedSession)
        for (index, offset) in offsets.enumerated() { lateness.append((offset - Double(index) * 0.010) * 1e3) }
    }
    let late = lateness.sorted()
    print(
        pad("2t pieces every 10 ms: lateness, median / p95 / max")
            + String(
                format: "%.2f / %.2f / %.2f ms (earliest %.2f ms)", late[late.count / 2], late[late.count * 95 / 100],
                late[late.count - 1], late[0]))

    // 4. The same with 8 concurrent tasks (wall time per request).
    let concurrent = try await seconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { try await fetch(many.session, target, times: requests / 8) }
            }
            try await group.waitForAll()
        }
    }
    report("4 the same, 8 concurrent tasks (wall time / requests)", concurrent / Double(requests / 8 * 8) * 1e6)

    // 4n-4m. Requests per second with 8 concurrent tasks, interleaved: URLSession's own cost (row 1n's
    //        session), one registry with one handler, and 8 registries (a task each), as 8 parallel
    //        tests would be.
    let eight = (0..<8).map { _ in
        let registry = MockRegistry()
        registry.register(target.absoluteString) { _ in try .text("ok") }
        return registry
    }
    let loads: [[URLSession]] = [
        Array(repeating: bare, count: 8), Array(repeating: one.session, count: 8), eight.map(\.session),
    ]
    var perSecond: [[Double]] = Array(repeating: [], count: loads.count)
    let concurrentRequests = max(requests / 10, 800) / 8 * 8
    for round in 0..<rounds {
        for offset in 0..<loads.count {
            let row = (round + offset) % loads.count
            let time = try await seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for session in loads[row] {
                        group.addTask { try await fetch(session, target, times: concurrentRequests / 8) }
                    }
                    try await group.waitForAll()
                }
            }
            perSecond[row].append(Double(concurrentRequests) / time)
        }
    }
    let throughput = perSecond.map(median)
    for (name, value) in zip(
        [
            "4n URLSession's own cost, 8 concurrent tasks", "4o MockNetwork, 1 registry, 8 concurrent tasks",
            "4m MockNetwork, 8 registries, a task each",
        ], throughput)
    {
        print(pad(name) + String(format: "%9.0f req/s", value))
    }

    print(pad("5 registering 10,000 handlers") + String(format: "%9.2f ms", registering * 1e3))

    // 6. Memory: a registry answering 100,000 requests, after a warm-up that fills its request log.
    let memory = MockRegistry()
    memory.register(target.absoluteString) { _ in try .text("ok") }
    try await fetch(memory.session, target, times: 20_000)
    let before = residentBytes()
    try await fetch(memory.session, target, times: 100_000)
    let after = residentBytes()
    print(
        pad("6 resident memory over 100,000 requests")
            + String(
                format: "%.1f MB → %.1f MB (%+.1f MB)", Double(before) / 1e6, Double(after) / 1e6,
                Double(after - before) / 1e6))

    // 7-9. Registering patterns, removing one URL among many, and an unmatched request among many.
    let patterns = MockRegistry()
    let registeringPatterns = await seconds {
        for index in 0..<2_000 {
            patterns.register(.host("host\(index).example.com", path: "/v1/*")) { _ in try .text("p") }
        }
    }
    print(pad("7 registering 2,000 host/path patterns") + String(format: "%9.2f ms", registeringPatterns * 1e3))
    let removals = 1_000
    let removing = await seconds {
        for index in 0..<removals { many.remove(addresses[index]) }
    }
    print(
        pad("8 remove(url) with 10,000 registered, per call")
            + String(format: "%9.2f µs", removing / Double(removals) * 1e6))
    guard let nowhere = URL(string: "https://api.example.com/nowhere") else { exit(1) }
    var unmatchedTimes: [Double] = []
    for _ in 0..<5 {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try? await many.session.data(from: nowhere)
        unmatchedTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    _ = many.takeFailures()
    print(pad("9 an unmatched request with 9,000 handlers") + String(format: "%9.2f ms", median(unmatchedTimes) * 1e3))

    // 10. A HAR archive with 20,000 entries for one path: replay() under .methodAndPath (entries
    //     grouped into one route, in recorded order) and, for comparison, .methodAndURL; then every
    //     entry requested in recorded order.
    let entryCount = 20_000
    guard let page = URL(string: "https://api.example.com/page") else { exit(1) }
    let archive = HTTPArchive(
        entries: (0..<entryCount).map { index in
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: page.absoluteString + "?n=\(index)"),
                response: HTTPArchive.Response(status: 200, body: HTTPArchive.Body(Data("\(index)".utf8))))
        })
    let byPath = MockRegistry()
    let loadingByPath = try await seconds { try byPath.replay(archive, matching: .methodAndPath) }
    let loadingByURL = try await seconds { try MockRegistry().replay(archive, matching: .methodAndURL) }
    var lastBody = ""
    let answering = try await seconds {
        for _ in 0..<entryCount {
            let (data, _) = try await byPath.session.data(from: page)
            lastBody = String(decoding: data, as: UTF8.self)
        }
    }
    guard lastBody == "\(entryCount - 1)" else {
        throw BenchmarkError(description: "replayed out of order: \(lastBody)")
    }
    print(
        pad("10 HAR replay(): 20,000 entries on one path, .methodAndPath")
            + String(format: "%9.2f ms", loadingByPath * 1e3))
    print(pad("10a the same entries, .methodAndURL") + String(format: "%9.2f ms", loadingByURL * 1e3))
    print(
        pad("10b then all 20,000 requested in recorded order")
            + String(format: "%9.2f µs/req (%.2f s)", answering / Double(entryCount) * 1e6, answering))

    // 11. Memory kept per registry once it and its session are released (after one request each).
    let releasedCount = max(requests, 1_000)
    for _ in 0..<200 {
        let registry = MockRegistry()
        registry.register(target.absoluteString) { _ in try .text("ok") }
        try await fetch(registry.session, target, times: 1)
    }
    try await Task.sleep(nanoseconds: 400_000_000)
    let beforeReleased = residentBytes()
    for _ in 0..<releasedCount {
        let registry = MockRegistry()
        registry.register(target.absoluteString) { _ in try .text("ok") }
        try await fetch(registry.session, target, times: 1)
    }
    try await Task.sleep(nanoseconds: 400_000_000)
    _ = MockRegistry()  // sweeps what is released
    let keptPerRegistry = Double(residentBytes() - beforeReleased) / Double(releasedCount)
    print(pad("11 memory kept per released registry") + String(format: "%9.2f KB", keptPerRegistry / 1e3))

    print("")
    let ratios = rows.map { row in
        "row \(row.0.prefix(while: { $0 != " " })) " + String(format: "%.2f×", row.1 / rows[0].1)
    }
    print("ratios to row 1: " + ratios.joined(separator: ", "))
    print(String(format: "row 3 / row 2: %.2f×", rows[2].1 / rows[1].1))
    print(
        String(
            format: "over URLSession's own cost (row 1n): row 2 %.2f×, row 2a %.2f×", rows[1].1 / rows[8].1,
            rows[3].1 / rows[8].1))
    print(
        String(
            format: "async handler / handler: row 2c / row 2 %.2f×; stream / one piece: row 2s / row 2d %.2f×",
            rows[9].1 / rows[1].1, rows[10].1 / rows[11].1))
    print(
        String(
            format: "patterns / row 2: 3p %.2f×, 3q %.2f×, 3r %.2f×; templates / row 2: 3t %.2f×",
            rows[5].1 / rows[1].1, rows[6].1 / rows[1].1, rows[7].1 / rows[1].1, rows[12].1 / rows[1].1))
    // The targets at URLSession's own cost, each row beside its floor (ratios from this run).
    func mark(_ name: String, _ ratio: Double, _ target: Double, atMost: Bool = true) {
        let met = atMost ? ratio <= target : ratio >= target
        print(
            pad("  " + name)
                + String(
                    format: "%5.2f× (target %@ %.2f×) %@", ratio, atMost ? "≤" : "≥", target, met ? "met" : "MISSED"))
    }
    print("targets:")
    mark("2a sequence / 1n", rows[3].1 / rows[8].1, 1.05)
    mark("2k constant answer / 1n", rows[13].1 / rows[8].1, 1.05)
    mark("2k constant answer / 1q (the same delegate queue)", rows[13].1 / rows[14].1, 1.05)
    mark("2 handler / 1n", rows[1].1 / rows[8].1, 1.15)
    mark("2c async handler / 2", rows[9].1 / rows[1].1, 1.15)
    mark("2b trait's path / 2", rows[4].1 / rows[1].1, 1.10)
    mark("4o 1 registry, 8 tasks / 4n (req/s)", throughput[1] / throughput[0], 0.95, atMost: false)
    mark("4m 8 registries / 4n (req/s)", throughput[2] / throughput[0], 0.95, atMost: false)
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
