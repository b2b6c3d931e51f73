// Rows 1 to 3t, 2s, 2d and 2t: one request at a time, through the floor's protocol and through
// MockNetwork's forms of answer, in interleaved rounds.

import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What later rows use again: the floor's session, row 2's registry, and row 3's 10,000 handlers.
struct RequestSetup {
    let bare: URLSession
    let one: MockRegistry
    let many: TenThousand
}

/// Rows 1 to 3t, 2s, 2d and 2t, and row 5's registering (measured here, printed with the
/// registration rows).
func requestRows(requests: Int) async throws -> RequestSetup {
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
    one.register(.url(target)) { _ in .text("ok") }

    // 2a. MockNetwork, answers that run no user code (a sequence): found and delivered inline.
    let inline = MockRegistry()
    let okay = MockResponse.text("ok")
    inline.register(.url(target.absoluteString), sequence: Array(repeating: okay, count: requests + 1_000))

    // 2k. MockNetwork, a constant answer registered without a closure: found and delivered inline.
    let constant = MockRegistry()
    constant.register(.url(target), answer: okay)

    // 2b. MockNetwork, one handler run as the .mockNetwork trait runs it: in a task of the test's,
    //     on MockNetwork's task executor.
    let trait = MockRegistry()
    trait.register(.url(target)) { _ in .text("ok") }
    // Made off the main actor, as a test's scope is.
    let runner = await Task.detached { TestTaskRunner(share: trait.handlerShare) }.value
    trait.handlerRunner = runner

    // 2c. MockNetwork, one `async` handler: it runs in a task of its own, which the request could cancel.
    let asyncOne = MockRegistry()
    asyncOne.register(.url(target)) { _ async throws in .text("ok") }

    // 3t. 1,000 path templates on the target's host (`/svc<n>/{id}/items`), and `/{page}` answering.
    let templates = MockRegistry()
    for index in 0..<1_000 {
        templates.register("https://api.example.com/svc\(index)/{id}/items") { (_, _: RouteParameters) in
            .text("no")
        }
    }
    templates.register("https://api.example.com/{page}") { (_, _: RouteParameters) in .text("ok") }

    // 5. Registering 10,000 handlers (and 3: the target registered last).
    let many = await registerTenThousand()

    // 3p-3r. Host and path patterns: 1,000 of them with a pattern answering, 10 with the last one
    //        answering, and 1,000 registered while an exact URL answers.
    let manyPatterns = MockRegistry()
    for index in 0..<1_000 {
        manyPatterns.register(.host("svc\(index).example.com", path: "/v1/*")) { _ in .text("no") }
    }
    manyPatterns.register(.host("api.example.com", path: "/tar*")) { _ in .text("ok") }
    let fewPatterns = MockRegistry()
    for index in 0..<9 {
        fewPatterns.register(.host("*.svc\(index).example.com", path: "/v1/*")) { _ in .text("no") }
    }
    fewPatterns.register(.host("*.example.com", path: "/tar*")) { _ in .text("ok") }
    let exactAmongPatterns = MockRegistry()
    for index in 0..<1_000 {
        exactAmongPatterns.register(.host("svc\(index).example.com", path: "/v1/*")) { _ in .text("no") }
    }
    exactAmongPatterns.register(.url(target)) { _ in .text("ok") }

    // Rows 1-3 run in interleaved rounds, so that a burst of load elsewhere on the machine hits
    // them alike; each row's figure is the median of its rounds.
    let sessions = [
        tutorial, one.session, many.registry.session, inline.session, trait.session, manyPatterns.session,
        fewPatterns.session, exactAmongPatterns.session, bare, asyncOne.session, templates.session, constant.session,
        bareOwnQueue,
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
    await report("1 hand-written URLProtocol, .ephemeral session", median(perRound[0]))
    await report("2 MockNetwork, 1 handler", median(perRound[1]))
    await report("3 MockNetwork, 10,000 other handlers, target last", median(perRound[2]))
    await report("2a MockNetwork, a sequence (no user code, inline)", median(perRound[3]))
    await report("2b MockNetwork, 1 handler on the trait's path", median(perRound[4]))
    await report("3p 1,000 host/path patterns, a pattern answers", median(perRound[5]))
    await report("3q 10 patterns (wildcard hosts), the last answers", median(perRound[6]))
    await report("3r 1,000 patterns registered, an exact URL answers", median(perRound[7]))
    await report("1n hand-written URLProtocol, no cache or cookie storage", median(perRound[8]))
    await report("2c MockNetwork, 1 async handler", median(perRound[9]))

    try await streamRows(rounds: rounds, requests: requests)

    await report("3t 1,000 path templates, a template answers", median(perRound[10]))
    await report("2k MockNetwork, a constant answer (no closure, inline)", median(perRound[11]))
    await report("1q row 1n with a delegate queue like MockNetwork's", median(perRound[12]))

    try await timedPiecesRow()
    return RequestSetup(bare: bare, one: one, many: many)
}

/// Rows 2s and 2d: a body in 100 pieces to a session data delegate (every piece its own
/// didReceive data), against the same 200 bytes in one piece on the same kind of session, interleaved.
func streamRows(rounds: Int, requests: Int) async throws {
    let streams = MockRegistry()
    let pieces = (0..<100).map { _ in Data("ok".utf8) }
    streams.register(.url(target.absoluteString + "?stream")) { _ in .streamed(pieces, every: .zero) }
    streams.register(.url(target.absoluteString + "?whole")) { _ in .data(pieces.reduce(Data(), +)) }
    let counter = ByteCounter()
    let delegateSession = URLSession(configuration: streams.configuration, delegate: counter, delegateQueue: nil)
    guard let streamURL = URL(string: target.absoluteString + "?stream"),
        let wholeURL = URL(string: target.absoluteString + "?whole")
    else { throw BenchmarkError(description: "no stream URL") }
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
    await report("2s a 100-piece stream to a data delegate", median(streamRounds[0]))
    await report("2d the same 200 bytes in one piece, data delegate", median(streamRounds[1]))
}

/// Row 2t. Timing: 10 streams of 20 pieces, one every 10 ms, to a data delegate; how late each
/// piece came after its time (measured from the response's arrival at the delegate).
func timedPiecesRow() async throws {
    let timed = MockRegistry()
    timed.register(.url(target.absoluteString + "?timed")) { _ in
        .streamed((0..<20).map { _ in Data("ok".utf8) }, every: .milliseconds(10))
    }
    let clock = PieceClock()
    let timedSession = URLSession(configuration: timed.configuration, delegate: clock, delegateQueue: nil)
    guard let timedURL = URL(string: target.absoluteString + "?timed") else {
        throw BenchmarkError(description: "no timed URL")
    }
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
}
