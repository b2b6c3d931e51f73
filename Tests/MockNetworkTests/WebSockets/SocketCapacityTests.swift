import Dispatch
import Foundation
import MockNetwork
import MockNetworkServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension TimingSensitive {
    /// Socket handlers count against their registry's share like any handler: handlers that block their
    /// thread hold only their own registry's threads, never Dispatch's, which the whole process shares.
    @Suite(.serialized)
    struct SocketCapacityTests {
        /// Two servers, each with 128 sockets whose handlers block their thread until the test lets them
        /// go: another registry's plain request is answered within 0.1 s of its time with none blocked.
        /// On their connections' queues, they used up Dispatch's 255 threads, and it took 31.8 s.
        @Test func blockedSocketHandlersDelayNoOtherRegistry() async throws {
            let gate = Latch()
            let started = Tally()
            let finished = Shared(false)
            endRunUnlessFinished(finished, within: 90, "two servers with 128 blocked socket handlers each") {
                "\(started.current) socket handlers started"
            }
            defer { finished.update { $0 = true } }
            defer { gate.open() }
            let control = try await Self.plainLatency("control")

            var servers: [MockServer] = []
            var clients: [RawWebSocketClient] = []
            defer { for client in clients { client.close() } }
            defer { for server in servers { server.stop() } }
            for _ in 0..<2 {
                let mocks = MockRegistry()
                mocks.webSocket("wss://api.example.com/feed") { _ in
                    started.add()
                    gate.wait()
                }
                let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                servers.append(server)
                let port = server.port
                let opened = try await onOwnThread {
                    Result {
                        try (0..<128).map { _ in
                            let client = try RawWebSocketClient(port: port, path: "/feed")
                            _ = try client.readHandshake()
                            return client
                        }
                    }
                }.get()
                clients += opened
            }
            // Each registry runs 32 of its handlers at once (its share); the rest wait their turn.
            let blocked = await onOwnThread { started.wait(for: 64, upTo: 20) }
            #expect(blocked, "only \(started.current) socket handlers started")
            let beside = try await Self.plainLatency("beside")
            #expect(
                beside < control + .milliseconds(100),
                "another registry answered after \(beside.milliseconds) beside \(started.current) blocked socket handlers, \(control.milliseconds) with none"
            )
            #expect(started.current <= 64, "\(started.current) socket handlers blocked at once, past two shares of 32")
        }

        private static func plainLatency(_ label: String) async throws -> Duration {
            let mocks = MockRegistry()
            mocks.register("https://plain.example.com/\(label)") { _ in .text(label) }
            let timed = Timed(
                URLRequest(url: try #require(URL(string: "https://plain.example.com/\(label)"))), on: mocks.session)
            #expect(await timed.ended(upTo: 40), "the \(label) request was not answered within 40 s")
            let end = try #require(timed.end)
            #expect(end.outcome.text == label, "\(end.outcome.error ?? "")")
            return end.at - timed.started
        }
    }
}
