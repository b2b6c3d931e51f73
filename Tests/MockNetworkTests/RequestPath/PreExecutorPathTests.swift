import Dispatch
import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TimingSensitive {
    /// The path Apple platforms take before macOS 15 / iOS 18, where there are no task executors, run
    /// here: a registry's `async` work goes to a one-thread executor standing for Swift concurrency's
    /// pool (as narrow as an iOS 16–17 Simulator's is reported to be), which "the test" blocks, as a
    /// synchronous test that waits for its request does. (On this machine the real pool cannot be
    /// narrowed: `LIBDISPATCH_COOPERATIVE_POOL_STRICT=1` and `taskset` leave 8 blocking tasks at 2.0 s
    /// either way.)
    @Suite(.serialized)
    struct PreExecutorPathTests {
        /// A registry on the pre-executor path, with a pool of one thread that `gate` blocks until it opens;
        /// returns once the pool's thread is blocked.
        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        private static func registryWithBlockedPool(_ gate: Latch) async -> (MockRegistry, OneThreadExecutor) {
            let mocks = MockRegistry()
            let pool = OneThreadExecutor()
            mocks.handlerShare.poolStandIn = pool
            let blocked = Tally()
            Task(executorPreference: pool) {
                blocked.add()
                gate.wait()
            }
            _ = await onOwnThread { blocked.wait(for: 1, upTo: 10) }
            return (mocks, pool)
        }

        /// With the pool blocked, a synchronous handler still answers (it runs on the registry's own
        /// threads), and an `async` handler's request, which cannot start there, times out at its 2 s,
        /// with an error and a failure that name the blocked pool and the fix; once the pool is free,
        /// an `async` handler answers on it, so the path is the one taken.
        @Test func aBlockedPoolTimesOutAsyncHandlersAndSaysWhy() async throws {
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
            let gate = Latch()
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "handlers beside a blocked one-thread pool")
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            let (mocks, _) = await Self.registryWithBlockedPool(gate)
            let onPool = Shared<Bool?>(nil)
            mocks.register("https://api.example.com/sync") { _ in .text("sync") }
            mocks.register("https://api.example.com/async") { _ async in
                onPool.update { $0 = Thread.current.name != "MockNetwork.handler" }
                return .text("async")
            }

            let sync = Timed(
                URLRequest(url: try #require(URL(string: "https://api.example.com/sync"))), on: mocks.session)
            #expect(await sync.ended(upTo: 5), "the synchronous handler did not answer beside the blocked pool")
            #expect(sync.end?.outcome.text == "sync", "\(sync.end?.outcome.error ?? "")")

            var request = URLRequest(url: try #require(URL(string: "https://api.example.com/async")))
            request.timeoutInterval = 2
            let starved = Timed(request, on: mocks.session)
            #expect(await starved.ended(upTo: 10), "the async handler's request had not ended after 10 s")
            let end = try #require(starved.end)
            let took = end.at - starved.started
            #expect(end.outcome.timedOut, "it ended with \(end.outcome.status ?? 0) \(end.outcome.text)")
            #expect(
                took > .milliseconds(1_500) && took < .seconds(3), "the 2 s timeout fired after \(took.milliseconds)")
            let error = end.outcome.error ?? ""
            #expect(error.contains("GET https://api.example.com/async timed out"), "\(error)")
            #expect(error.contains("for Swift concurrency's pool to run it"), "\(error)")
            #expect(
                error.contains("Await the request in the test instead, or register a synchronous handler"), "\(error)")
            #expect(mocks.failures.map(\.message) == [error])

            gate.open()
            let freed = Timed(
                URLRequest(url: try #require(URL(string: "https://api.example.com/async"))), on: mocks.session)
            #expect(await freed.ended(upTo: 5), "the async handler did not answer once the pool was free")
            #expect(freed.end?.outcome.text == "async", "\(freed.end?.outcome.error ?? "")")
            #expect(onPool.current == true, "the async handler ran on the registry's threads, not the pool")
        }

        /// The trait's runner on the same path: with the pool blocked, a synchronous handler not started
        /// there within 2 s runs on the registry's threads (outside the test) and answers.
        @Test func theTraitsSynchronousHandlersLeaveABlockedPool() async throws {
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
            let gate = Latch()
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "the trait's runner beside a blocked one-thread pool")
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            let (mocks, _) = await Self.registryWithBlockedPool(gate)
            let runner = TestTaskRunner(share: mocks.handlerShare)
            defer { runner.finish() }
            mocks.handlerRunner = runner
            mocks.register("https://api.example.com/sync") { _ in .text("sync") }
            let sync = Timed(
                URLRequest(url: try #require(URL(string: "https://api.example.com/sync"))), on: mocks.session)
            #expect(await sync.ended(upTo: 10), "the synchronous handler did not answer beside the blocked pool")
            let end = try #require(sync.end)
            #expect(end.outcome.text == "sync", "\(end.outcome.error ?? "")")
            #expect(
                end.at - sync.started > .seconds(1.5), "it answered before the 2 s fallback: the pool was not blocked")
        }
    }
}
