import Dispatch
import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
extension TimingSensitive {
    /// The end of a `.mockNetwork` test holds no thread of the concurrency pool and waits for nothing
    /// it does not need: beside a test that blocks a pool thread, and on a pool one thread wide (the iOS
    /// Simulator's), it takes about as long as its report. Before, it met one job on each pool thread,
    /// each blocking its thread up to half a second, and took that bound whenever one was blocked.
    @Suite(.serialized) struct TraitEndTimingTests {
        static let address = "https://api.example.com/end"

        /// Blocks one thread of the concurrency pool until `release`, as a test that waits on a
        /// semaphore does; returns once it blocks.
        static func blockAPoolThread(until release: DispatchSemaphore) async {
            let blocked = Countdown(1)
            Task.detached {
                blocked.arrive()
                release.wait()
            }
            await blocked.wait()
        }

        /// One trait test: registers, requests, answers; returns the seconds from the body's end to the
        /// scope's end.
        static func timedEnd(_ test: Test) async throws -> Double {
            let bodyEnded = Shared<UInt64>(0)
            let url = try #require(URL(string: address))
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                mocks.register(.url(address)) { _ in .text("ok") }
                let (data, _) = try await mocks.session.data(from: url)
                #expect(String(decoding: data, as: UTF8.self) == "ok")
                bodyEnded.update { $0 = DispatchTime.now().uptimeNanoseconds }
            }
            return Double(DispatchTime.now().uptimeNanoseconds - bodyEnded.current) / 1e9
        }

        static func check(_ ends: [Double], _ what: String) {
            let sorted = ends.sorted()
            let median = sorted[sorted.count / 2]
            // Bounds for a busy machine, below the half second the end took when it met a blocked thread
            // (a few milliseconds on a quiet one).
            #expect(median < 0.1, "\(what): the median end took \(median) s (all: \(sorted))")
            #expect(sorted.last! < 0.4, "\(what): the slowest end took \(sorted.last!) s")
        }

        @Test func aTestsEndTakesMillisecondsBesideABlockedPoolThread() async throws {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "trait ends beside a blocked pool thread")
            defer { finished.update { $0 = true } }
            let test = try #require(Test.current)
            let release = DispatchSemaphore(value: 0)
            await Self.blockAPoolThread(until: release)
            defer { release.signal() }
            var ends: [Double] = []
            for _ in 0..<20 { ends.append(try await Self.timedEnd(test)) }
            Self.check(ends, "beside a blocked pool thread")
        }

        @Test func aTestsEndTakesMillisecondsOnAOneThreadExecutor() async throws {
            guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "trait ends on a one-thread executor")
            defer { finished.update { $0 = true } }
            let test = try #require(Test.current)
            let one = OneThreadExecutor()
            var ends: [Double] = []
            for _ in 0..<20 {
                ends.append(try await withTaskExecutorPreference(one) { try await Self.timedEnd(test) })
            }
            Self.check(ends, "on a one-thread executor")
        }

        /// A test that leaves a long-lived task running (one that awaits a stream that never ends, as a
        /// view model's observer does) pays for it the half second bound at its end, and no more: such a
        /// task cannot be told from one that sleeps before its request, whose request is the test's. (It
        /// was about 20 ms, and a task that slept 100 ms before an unmatched request passed unseen.)
        @Test func aTestThatLeavesALongLivedTaskRunningWaitsTheBoundOnly() async throws {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "trait ends with a long-lived task left running")
            defer { finished.update { $0 = true } }
            let test = try #require(Test.current)
            let (stream, continuation) = AsyncStream<Int>.makeStream()
            defer { continuation.finish() }
            var ends: [Double] = []
            for _ in 0..<4 {
                let bodyEnded = Shared<UInt64>(0)
                try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                    Task { for await _ in stream {} }
                    bodyEnded.update { $0 = DispatchTime.now().uptimeNanoseconds }
                }
                ends.append(Double(DispatchTime.now().uptimeNanoseconds - bodyEnded.current) / 1e9)
            }
            #expect(
                ends.min()! >= 0.45 && ends.max()! < 2, "the ends took \(ends.sorted()) s, where the bound is 0.5 s")
        }

        /// 64 trait tests at once beside a blocked pool thread (the parallel cases): each ends
        /// within 1.5 s of its body.
        @Test func sixtyFourTestsAtOnceEndSoonAfterTheirBodies() async throws {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 60, "64 trait tests at once")
            defer { finished.update { $0 = true } }
            let test = try #require(Test.current)
            let release = DispatchSemaphore(value: 0)
            await Self.blockAPoolThread(until: release)
            defer { release.signal() }
            let ends = try await withThrowingTaskGroup(of: Double.self) { group in
                for _ in 0..<64 { group.addTask { try await Self.timedEnd(test) } }
                return try await group.reduce(into: [Double]()) { $0.append($1) }
            }
            #expect(ends.count == 64)
            #expect(ends.max()! < 1.5, "the slowest of 64 ends took \(ends.max()!) s after its body")
        }
    }
}
