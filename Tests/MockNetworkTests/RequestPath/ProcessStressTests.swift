import Dispatch
import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
extension TimingSensitive {
    /// No test holds up another: eight tests run at once, each with a registry of its own. One has 100
    /// synchronous handlers stuck, one 300 `async` handlers that block their threads, one matches a 50 MB
    /// JSON body against four `.jsonBody` routes, one streams 1,000 events, and four answer ordinary
    /// requests, whose 99th percentile stays under half a second (well under 50 ms on a quiet machine)
    /// while the others do their worst. The stuck ones
    /// are let go once the ordinary ones are done; a watchdog ends the run if anything deadlocks.
    @Suite struct ProcessStressTests {
        enum Role: String, CaseIterable, Sendable {
            case stuckSync, blockedAsync, hugeBody, longStream, ordinary1, ordinary2, ordinary3, ordinary4
        }

        /// When the hostile tests are at their worst, and when the ordinary ones are done.
        let hostileReady = Countdown(4)
        let ordinaryDone = Countdown(4)

        /// Whether ThreadSanitizer runs: it makes every request several times slower.
        static let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
        /// The ordinary requests' p99 bound: a request held up by another test waits for seconds (until
        /// the stuck ones are let go, after the ordinary ones end); a busy machine's p99 is tens of
        /// milliseconds (under 50 ms quiet, 52-60 ms beside eight busy loops on 2 cores, 60 ms under
        /// ThreadSanitizer). So the bound is generous: tight latency is the benchmark's to watch.
        static let latencyBound = underThreadSanitizer ? 1.0 : 0.5

        /// The eight run as the tests of a parallel run do: each a task of its own beside the others,
        /// with a registry of its own. (Not as a parameterized test's cases: the suites that measure
        /// time run serialized, case by case.)
        @Test func eightTestsAtOnceNoneHoldsUpAnother() async throws {
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 240, "ProcessStressTests")
            defer { finished.update { $0 = true } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for role in Role.allCases {
                    group.addTask { try await run(role) }
                }
                try await group.waitForAll()
            }
        }

        private func run(_ role: Role) async throws {
            switch role {
            case .stuckSync: try await stuckSync()
            case .blockedAsync: try await blockedAsync()
            case .hugeBody: try await hugeBody()
            case .longStream: try await longStream()
            case .ordinary1, .ordinary2, .ordinary3, .ordinary4: try await ordinary(role)
            }
        }

        /// 100 requests whose synchronous handlers block until the ordinary tests are done.
        private func stuckSync() async throws {
            let (mocks, address, release, started) = Self.blocking("stuck")
            mocks.register(.url(address)) { _ in
                started.arrive()
                release.wait()
                return .text("late")
            }
            try await stayBlocked(mocks, address, count: 100, release: release, started: started)
        }

        /// 300 `async` handlers that block their threads (as a handler calling synchronous code does)
        /// until the ordinary tests are done.
        private func blockedAsync() async throws {
            let (mocks, address, release, started) = Self.blocking("blocked")
            mocks.register(.url(address)) { _ async throws in
                started.arrive()
                release.wait()
                return .text("late")
            }
            try await stayBlocked(mocks, address, count: 300, release: release, started: started)
        }

        /// A registry, its address, the gate its handlers block on and the count of those that started.
        private static func blocking(_ path: String) -> (MockRegistry, String, DispatchSemaphore, Countdown) {
            (MockRegistry(), "https://api.example.com/\(path)", DispatchSemaphore(value: 0), Countdown(32))
        }

        /// Sends `count` requests at once; once the registry's whole share is stuck, says the hostile
        /// test is at its worst, waits for the ordinary ones, then lets every handler go.
        private func stayBlocked(
            _ mocks: MockRegistry, _ address: String, count: Int, release: DispatchSemaphore, started: Countdown
        ) async throws {
            let session = mocks.session
            let url = try #require(URL(string: address))
            let requests = Task {
                await withTaskGroup(of: Int.self) { group in
                    for _ in 0..<count {
                        group.addTask { await Self.status(session, url) }
                    }
                    return await group.reduce(0) { $0 + ($1 == 200 ? 1 : 0) }
                }
            }
            await started.wait()  // the registry's whole share is stuck
            hostileReady.arrive()
            await ordinaryDone.wait()
            for _ in 0..<count { release.signal() }
            #expect(await requests.value == count)
        }

        /// A 50 MB JSON body, matched against four `.jsonBody` routes that do not fit and a catch-all.
        private func hugeBody() async throws {
            let mocks = MockRegistry()
            let address = "https://api.example.com/upload"
            for index in 0..<4 {
                mocks.register(.url(address).method("POST").jsonBody(#"{"route": \#(index)}"#)) { _ in
                    .text("route \(index)")
                }
            }
            mocks.register(.url(address).method("POST")) { request in .text("catch-all") }
            let body = await Task.detached { Self.fiftyMegabytesOfJSON() }.value
            var request = URLRequest(url: try #require(URL(string: address)))
            request.httpMethod = "POST"
            request.httpBody = body
            request.timeoutInterval = 120
            let session = mocks.session
            let answer = Task { try await session.data(for: request) }
            hostileReady.arrive()
            let (data, _) = try await answer.value
            #expect(String(decoding: data, as: UTF8.self) == "catch-all")
        }

        /// 1,000 server-sent events, one every millisecond, read to the end.
        private func longStream() async throws {
            let mocks = MockRegistry()
            let address = "https://api.example.com/events"
            let events = (0..<1_000).map { ServerSentEvent(data: "event \($0)") }
            mocks.register(.url(address)) { _ in .events(events, every: .milliseconds(1)) }
            hostileReady.arrive()
            let (data, _) = try await mocks.session.data(from: try #require(URL(string: address)))
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.count == 1_000)
            #expect(text.hasSuffix("data: event 999\n\n"))
        }

        /// 200 ordinary requests, one after another, once the others are at their worst.
        private func ordinary(_ role: Role) async throws {
            defer { ordinaryDone.arrive() }
            let mocks = MockRegistry()
            let address = "https://api.example.com/\(role.rawValue)"
            mocks.register(.url(address)) { _ in .json(["role": role.rawValue]) }
            let session = mocks.session
            let url = try #require(URL(string: address))
            await hostileReady.wait()
            var seconds: [Double] = []
            for _ in 0..<200 {
                let start = DispatchTime.now().uptimeNanoseconds
                #expect(await Self.status(session, url) == 200)
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
            seconds.sort()
            let p99 = seconds[seconds.count * 99 / 100]
            #expect(
                p99 < Self.latencyBound,
                "\(role.rawValue): p99 \(p99) s, median \(seconds[seconds.count / 2]) s (bound \(Self.latencyBound) s)")
        }

        private static func status(_ session: URLSession, _ url: URL) async -> Int {
            guard let (_, response) = try? await session.data(from: url) else { return 0 }
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }

        /// `{"items": [{"id": 0, "name": "item 0"}, …]}`, about 50 MB.
        private static func fiftyMegabytesOfJSON() -> Data {
            var text = #"{"items": ["#
            text.reserveCapacity(52_000_000)
            var index = 0
            while text.utf8.count < 50_000_000 {
                if index > 0 { text += ", " }
                text += #"{"id": \#(index), "name": "item number \#(index) of a long list"}"#
                index += 1
            }
            return Data((text + "]}").utf8)
        }
    }
}
