import Dispatch
import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
extension TimingSensitive {
    /// One registry's handlers, however long they block or wait, never hold up another registry's
    /// requests, and a process whose handlers block cannot run out of threads.
    ///
    /// Every wait here is on an event (a handler started, a request ended), each on a thread of its own,
    /// and each test is bounded by a watchdog that ends the run when it hangs, saying how far it got.
    @Suite(.serialized)
    struct TimeSharingTests {
        // MARK: Stuck handlers

        /// Registry A's 100 requests have handlers that block until the test lets them go; registry B's
        /// request, made once they are all resumed and 32 of them run (a registry's share), is answered within 50 ms, before
        /// A's are let go. B gets a second; then A's are let go whatever happened, and all must end.
        @Test func stuckHandlersOfOneRegistryNeverStarveAnother() async throws {
            let (a, b) = (MockRegistry(), MockRegistry())
            let gate = Latch()
            let started = Tally()
            a.register("https://a.example.com/stuck") { _ in
                started.add()
                gate.wait()
                return .text("a")
            }
            b.register("https://b.example.com/quick") { _ in .text("b") }
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "100 stuck handlers beside another registry's request") {
                "\(started.current) of registry A's handlers started"
            }
            defer { finished.update { $0 = true } }
            defer { gate.open() }  // A's handlers end however the test does

            let stuckURL = try #require(URL(string: "https://a.example.com/stuck"))
            let stuck = Fired(100)
            stuck.start(on: a.session, URLRequest(url: stuckURL))
            // All 100 are resumed; wait until as many handlers run as a registry's share allows (32; with
            // one pool for all, 64 ran, and the rest, B's among them, waited behind them).
            let startedEnough = await onOwnThread { started.wait(for: 32, upTo: 10) }
            #expect(startedEnough, "only \(started.current) of A's 100 handlers started")

            let quickRequest = URLRequest(url: try #require(URL(string: "https://b.example.com/quick")))
            let stuckNow = started.current
            let quick = Timed(quickRequest, on: b.session)
            let answeredWhileStuck = await quick.ended(upTo: 1)
            let released = ContinuousClock.now
            gate.open()
            _ = await quick.ended()
            let allEnded = await stuck.allEnded()

            let end = try #require(quick.end)
            let latency = end.at - quick.started
            let waited =
                answeredWhileStuck
                ? "" : ", only once A's handlers were released (\((end.at - released).milliseconds) after)"
            #expect(
                answeredWhileStuck && latency < .milliseconds(50),
                "B's request beside \(stuckNow) stuck handlers of A was answered after \(latency.milliseconds)\(waited)"
            )
            #expect(end.outcome.status == 200 && end.outcome.text == "b")
            #expect(allEnded)
            let stuckAnswered = stuck.ended.filter { $0.status == 200 && $0.text == "a" }.count
            #expect(stuckAnswered == 100, "\(stuckAnswered) of A's 100 requests were answered once released")
        }

        // MARK: Nested waits

        /// 100 requests to registry A, whose synchronous handler makes a request to registry B and waits
        /// for it on its thread (as code written before async/await does): all answered, with B's answer,
        /// within 2 s. B's handler takes 0.1 s, as a service does: long enough for A's handlers to fill
        /// every thread there is before B's requests come (with an instant B each A ends before the next
        /// needs a thread, and nothing is tested). The nested request has a timeout of 10 s, its client's.
        @Test func nestedWaitsAcrossRegistriesCannotDeadlock() async throws {
            let (a, b) = (MockRegistry(), MockRegistry())
            b.register("https://b.example.com/inner") { _ in
                Thread.sleep(forTimeInterval: 0.1)
                return .text("from B")
            }
            var inner = URLRequest(url: try #require(URL(string: "https://b.example.com/inner")))
            inner.timeoutInterval = 10
            let innerRequest = inner
            let innerSession = b.session
            // A synchronous handler that asks registry B and waits for it on its own thread, then answers
            // with what B gave (504 and the error when B gave none).
            a.register("https://a.example.com/outer") { _ in
                let reply = outcomeWaitingOnThisThread(innerSession, innerRequest)
                return .text(reply.error ?? reply.text, status: reply.status ?? 504)
            }
            let finished = Shared(false)
            let outer = try #require(URL(string: "https://a.example.com/outer"))
            let start = ContinuousClock.now
            let fired = Fired(100)
            endRunUnlessFinished(finished, within: 120, "100 handlers of A each waiting on a request to B") {
                "\(fired.done.current) of 100 requests ended"
            }
            defer { finished.update { $0 = true } }
            fired.start(on: a.session, URLRequest(url: outer))
            _ = await fired.allEnded()
            let elapsed = ContinuousClock.now - start

            let outcomes = fired.ended
            let failed = outcomes.filter { $0.status != 200 || $0.text != "from B" }
            #expect(
                failed.count == 0 && elapsed < .seconds(2),
                """
                100 nested requests took \(elapsed.milliseconds); \(failed.count) not answered by B \
                (statuses \(Dictionary(grouping: failed.map { $0.status ?? 0 }, by: { $0 }).mapValues(\.count))), \
                the first: \(failed.first?.text ?? "none")
                """)
        }

        // MARK: Async handlers that block their thread

        /// What `count` requests to a registry whose `async` handler blocks its thread 50 ms and then
        /// awaits a request to another registry came back with, how long they took and the most threads
        /// the process had meanwhile.
        private static func blockingAsyncHandlers(
            count: Int, watchdog seconds: TimeInterval
        ) async throws -> (outcomes: [Outcome], elapsed: Duration, peakThreads: Int?, mostBlocking: Int) {
            let (a, b) = (MockRegistry(), MockRegistry())
            b.register("https://b.example.com/inner") { _ in .text("from B") }
            let inner = try #require(URL(string: "https://b.example.com/inner"))
            let innerSession = b.session
            let started = Tally()
            let peak = PeakThreads()
            let blocking = Shared((now: 0, most: 0))
            a.register("https://a.example.com/outer") { _ async throws in
                started.add()
                peak.note()
                blocking.update {
                    $0.now += 1; $0.most = max($0.most, $0.now)
                }
                usleep(50_000)
                blocking.update { $0.now -= 1 }
                let (data, response) = try await innerSession.data(from: inner)
                peak.note()
                return .text(
                    String(decoding: data, as: UTF8.self), status: (response as? HTTPURLResponse)?.statusCode ?? 500)
            }
            let finished = Shared(false)
            let outer = try #require(URL(string: "https://a.example.com/outer"))
            let start = ContinuousClock.now
            let fired = Fired(count)
            let what = "\(count) async handlers that block, then ask another registry"
            endRunUnlessFinished(finished, within: seconds, what) {
                let now = processThreadCount().map(String.init) ?? "?"
                let most = peak.current.map(String.init) ?? "?"
                return "\(started.current) handlers started, \(fired.done.current) of \(count) requests ended, "
                    + "\(now) threads now, at most \(most) seen in a handler"
            }
            defer { finished.update { $0 = true } }
            fired.start(on: a.session, URLRequest(url: outer))
            _ = await fired.allEnded()
            peak.note()
            return (fired.ended, ContinuousClock.now - start, peak.current, blocking.current.most)
        }

        /// 300 such requests all answered within 10 s, and no more handlers blocking at once than a
        /// registry's share of threads (32; before, 255 blocked at once, every one of Dispatch's threads,
        /// and the process stopped). Handlers run on threads of MockNetwork's own, which Dispatch's limit
        /// does not count, so the process's thread count is no longer the measure.
        @Test func blockingAsyncHandlersAreBoundedAndCannotDeadlock() async throws {
            let (outcomes, elapsed, _, mostBlocking) = try await Self.blockingAsyncHandlers(
                count: 300, watchdog: 30)
            let answered = outcomes.filter { $0.status == 200 && $0.text == "from B" }.count
            #expect(
                answered == 300 && elapsed < .seconds(10),
                """
                \(answered) of 300 answered in \(elapsed.milliseconds); the first failure: \
                \(outcomes.first { $0.status != 200 }?.error ?? "none")
                """)
            #expect(mostBlocking <= 32, "\(mostBlocking) handlers of one registry blocked their threads at once")
        }

        /// 1,000 such requests all answered, however long it takes (the watchdog gives 60 s).
        @Test func aThousandBlockingAsyncHandlersCannotDeadlock() async throws {
            let (outcomes, elapsed, peak, _) = try await Self.blockingAsyncHandlers(count: 1_000, watchdog: 60)
            let answered = outcomes.filter { $0.status == 200 && $0.text == "from B" }.count
            #expect(
                answered == 1_000,
                "\(answered) of 1000 answered in \(elapsed.milliseconds), at most \(peak.map(String.init) ?? "?") threads"
            )
        }

        // MARK: A huge body

        /// A JSON document of at least `megabytes` MB: an array of small objects.
        private static func jsonBody(megabytes: Int) -> Data {
            let items = (0..<100).map { #"{"id":\#($0),"name":"item \#($0)","tags":["alpha","beta"],"price":12.5}"# }
            let chunk = Data(items.joined(separator: ",").utf8)
            var body = Data(#"{"items":["#.utf8)
            body.reserveCapacity(megabytes << 20 + chunk.count + 16)
            body.append(chunk)
            while body.count < megabytes << 20 {
                body.append(UInt8(ascii: ","))
                body.append(chunk)
            }
            body.append(contentsOf: Array("]}".utf8))
            return body
        }

        private static func jsonPost(to url: URL, body: Data) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
            return request
        }

        /// A 50 MB JSON POST to registry A, which has four `.jsonBody` handlers for its URL that do not
        /// match and a catch-all for its host, is answered by the catch-all; registry B's GET, made right
        /// after A's request is resumed, is answered before A's, within 2 s (a bound for a busy machine:
        /// with the body matched on Foundation's queue, B waited for all of A's matching).
        @Test func aHugeBodyDoesNotHoldUpAnotherRegistry() async throws {
            let (a, b) = (MockRegistry(), MockRegistry())
            let upload = "https://a.example.com/upload"
            for variant in 0..<4 {
                a.register(.url(upload).method("POST").jsonBody(#"{"variant": \#(variant)}"#)) { _ in .status(201) }
            }
            a.register(.host("a.example.com")) { _ in .text("catch-all") }
            b.register("https://b.example.com/quick") { _ in .text("b") }
            let hugeRequest = Self.jsonPost(to: try #require(URL(string: upload)), body: Self.jsonBody(megabytes: 50))
            let quickRequest = URLRequest(url: try #require(URL(string: "https://b.example.com/quick")))

            let finished = Shared(false)
            let requests = Shared<(huge: Timed, quick: Timed)?>(nil)
            endRunUnlessFinished(finished, within: 300, "a 50 MB JSON POST beside another registry's GET") {
                let ended = requests.current.map { ($0.huge.end != nil, $0.quick.end != nil) }
                return "huge answered: \(ended?.0 ?? false), quick answered: \(ended?.1 ?? false)"
            }
            defer { finished.update { $0 = true } }
            // There is no event for "A's body is being matched" that the test can wait on without
            // changing the request, so B's request starts right after A's is resumed (each on a thread of
            // the test's own: making a task waits for Foundation's queue, which must not hold a thread
            // of the concurrency pool).
            let (huge, quick) = await onOwnThread { [a, b] in
                let huge = Timed(hugeRequest, on: a.session)
                return (huge, Timed(quickRequest, on: b.session))
            }
            requests.update { $0 = (huge, quick) }
            _ = await quick.ended()
            _ = await huge.ended()

            let quickEnd = try #require(quick.end)
            let hugeEnd = try #require(huge.end)
            let quickLatency = quickEnd.at - quick.started
            let hugeTime = hugeEnd.at - huge.started
            #expect(
                quickEnd.at < hugeEnd.at && quickLatency < .seconds(2),
                "B's GET took \(quickLatency.milliseconds) beside A's 50 MB POST (which took \(hugeTime.milliseconds))")
            #expect(quickEnd.outcome.status == 200 && quickEnd.outcome.text == "b")
            #expect(
                hugeEnd.outcome.status == 200 && hugeEnd.outcome.text == "catch-all", "\(hugeEnd.outcome.error ?? "")")
        }
    }
}
