import Dispatch
import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TimingSensitive {
    /// Capacity belongs to a test: however many handlers other registries keep stuck, live or of
    /// tests that have ended, a registry's request finds a thread, and a request queued behind its own
    /// registry's stuck handlers still times out at its client's time, saying what it waited behind.
    ///
    /// Latencies are compared with a control measured in the same test, before anything is stuck, so a
    /// busy machine slows both; waits are on events, each bounded by a watchdog.
    @Suite(.serialized)
    struct CapacityTests {
        /// `registries` registries whose `perRegistry` requests each block their handler's thread until
        /// `gate` opens; returns once every handler runs (or 20 s passed), with the registries.
        private static func stuck(
            _ registries: Int, perRegistry: Int, gate: Latch, started: Tally
        ) async throws -> [MockRegistry] {
            let url = try #require(URL(string: "https://stuck.example.com/wait"))
            let all = (0..<registries).map { _ in MockRegistry() }
            for mocks in all {
                mocks.register("https://stuck.example.com/wait") { _ in
                    started.add()
                    gate.wait()
                    return .text("late")
                }
                Fired(perRegistry).start(on: mocks.session, URLRequest(url: url))
            }
            let all32 = await onOwnThread { started.wait(for: registries * perRegistry, upTo: 20) }
            #expect(all32, "only \(started.current) of \(registries * perRegistry) stuck handlers started")
            return all
        }

        /// How long a fresh registry takes to answer a plain request, measured now.
        private static func plainLatency(_ label: String) async throws -> (Duration, Outcome) {
            let mocks = MockRegistry()
            mocks.register("https://plain.example.com/\(label)") { _ in .text(label) }
            var request = URLRequest(url: try #require(URL(string: "https://plain.example.com/\(label)")))
            request.timeoutInterval = 2
            let timed = Timed(request, on: mocks.session)
            let answered = await timed.ended(upTo: 5)
            #expect(answered, "the \(label) request was not answered within 5 s")
            let end = try #require(timed.end)
            return (end.at - timed.started, end.outcome)
        }

        /// A seventh registry's handler beside six registries whose 32 handlers each are stuck (every
        /// thread a share may take): answered within 0.1 s of its time with nothing stuck. With a bound
        /// on the threads of all registries (192), it waited until they were let go (14.7 s, measured).
        @Test func aSeventhRegistryIsAnsweredBesideSixFullOfStuckHandlers() async throws {
            let finished = Shared(false)
            let (gate, started) = (Latch(), Tally())
            endRunUnlessFinished(finished, within: 60, "six registries with 32 stuck handlers each") {
                "\(started.current) of 192 stuck handlers started"
            }
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            let (control, _) = try await Self.plainLatency("control")
            let registries = try await Self.stuck(6, perRegistry: 32, gate: gate, started: started)
            let (beside, outcome) = try await Self.plainLatency("seventh")
            #expect(outcome.status == 200 && outcome.text == "seventh", "\(outcome.error ?? "")")
            #expect(
                beside < control + .milliseconds(100),
                "the seventh registry answered after \(beside.milliseconds) beside 192 stuck handlers, \(control.milliseconds) with none"
            )
            withExtendedLifetime(registries) {}
        }

        /// The same after the six registries are gone, as those of tests that ended, with their handlers
        /// still stuck: a later registry's request with a 2 s timeout is answered within 0.1 s of its
        /// time with nothing stuck (it was 28 s, when ended tests' threads still counted).
        @Test func stuckHandlersOfEndedTestsHoldNoLaterTest() async throws {
            let finished = Shared(false)
            let (gate, started) = (Latch(), Tally())
            endRunUnlessFinished(finished, within: 60, "six ended registries with 32 stuck handlers each") {
                "\(started.current) of 192 stuck handlers started"
            }
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            let (control, _) = try await Self.plainLatency("control")
            var registries = try await Self.stuck(6, perRegistry: 32, gate: gate, started: started)
            registries.removeAll()
            let (later, outcome) = try await Self.plainLatency("later")
            #expect(outcome.status == 200 && outcome.text == "later", "\(outcome.error ?? "")")
            #expect(
                later < control + .milliseconds(100),
                "a later test's request answered after \(later.milliseconds) beside ended tests' stuck handlers, \(control.milliseconds) with none"
            )
        }

        /// Six registries with 32 handlers each (every thread of their shares) waiting on their threads for
        /// a request to one shared registry, made once all 192 run (its handler takes 0.1 s, as a service
        /// does): all answered, with its answer, well within the inner requests' 15 s timeout (0.7 s here on
        /// a quiet machine; the bound is 10 s, for a busy one). With 192 threads in all, the six full shares
        /// left none for the shared registry, and each waited out its own 15 s bound (504).
        @Test func fanOutFromSixFullRegistriesToOneSharedRegistryAnswersAll() async throws {
            let shared = MockRegistry()
            shared.register("https://shared.example.com/inner") { _ in
                Thread.sleep(forTimeInterval: 0.1)
                return .text("shared")
            }
            var inner = URLRequest(url: try #require(URL(string: "https://shared.example.com/inner")))
            inner.timeoutInterval = 15
            let (innerRequest, innerSession) = (inner, shared.session)
            let outer = URLRequest(url: try #require(URL(string: "https://fan.example.com/outer")))
            let fired = (0..<6).map { _ in Fired(32) }
            let running = Tally()
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "six full registries fanning out to one") {
                "\(running.current) outer handlers ran, \(fired.map(\.done.current).reduce(0, +)) of 192 requests ended"
            }
            defer { finished.update { $0 = true } }
            let registries = (0..<6).map { _ in MockRegistry() }
            for mocks in registries {
                mocks.register("https://fan.example.com/outer") { _ in
                    running.add()
                    _ = running.wait(for: 192, upTo: 10)
                    let reply = outcomeWaitingOnThisThread(innerSession, innerRequest)
                    return .text(reply.error ?? reply.text, status: reply.status ?? 504)
                }
            }
            let start = ContinuousClock.now
            for (mocks, requests) in zip(registries, fired) { requests.start(on: mocks.session, outer) }
            for requests in fired { _ = await requests.allEnded(upTo: 30) }
            let elapsed = ContinuousClock.now - start
            let outcomes = fired.flatMap(\.ended)
            let answered = outcomes.filter { $0.status == 200 && $0.text == "shared" }.count
            #expect(
                answered == 192 && elapsed < .seconds(10),
                "\(answered) of 192 fanned-out requests answered in \(elapsed.milliseconds); the first other: \(outcomes.first { $0.status != 200 }.map { "\($0.status ?? 0) \($0.text)" } ?? "none")"
            )
        }

        /// A request queued behind its own registry's 32 stuck handlers, with a timeout of 2 s, times out
        /// between 1.5 and 3 s (it was answered after 15 s, its timeout suspended while it waited), and
        /// both the client's error and the test's failure name the stuck handlers.
        @Test func aRequestQueuedBehindStuckHandlersTimesOutAtItsTime() async throws {
            let mocks = MockRegistry()
            let (gate, started) = (Latch(), Tally())
            mocks.register("https://api.example.com/stuck") { _ in
                started.add()
                gate.wait()
                return .text("late")
            }
            mocks.register("https://api.example.com/queued") { _ in .text("queued") }
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "a request behind 32 stuck handlers") {
                "\(started.current) of 32 stuck handlers started"
            }
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            Fired(32).start(
                on: mocks.session, URLRequest(url: try #require(URL(string: "https://api.example.com/stuck"))))
            let allStarted = await onOwnThread { started.wait(for: 32, upTo: 20) }
            #expect(allStarted, "only \(started.current) of 32 stuck handlers started")

            var request = URLRequest(url: try #require(URL(string: "https://api.example.com/queued")))
            request.timeoutInterval = 2
            let queued = Timed(request, on: mocks.session)
            let ended = await queued.ended(upTo: 10)
            #expect(ended, "the queued request had not ended after 10 s")
            let end = try #require(queued.end)
            let took = end.at - queued.started
            #expect(
                end.outcome.timedOut, "the queued request ended with \(end.outcome.status ?? 0) \(end.outcome.text)")
            #expect(
                took > .milliseconds(1_500) && took < .seconds(3), "the 2 s timeout fired after \(took.milliseconds)")
            let error = end.outcome.error ?? ""
            #expect(error.contains("GET https://api.example.com/queued timed out"), "\(error)")
            #expect(
                error.contains("held all 32 of its threads: GET https://api.example.com/stuck (running"), "\(error)")
            let failure = mocks.failures.first { $0.message.contains("api.example.com/queued") }
            #expect(failure?.message == error, "the test's failure: \(mocks.failures.map(\.message))")
        }
    }
}
