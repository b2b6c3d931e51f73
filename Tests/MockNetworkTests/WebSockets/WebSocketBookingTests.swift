import Foundation
import MockNetwork
import MockNetworkServer
import Testing

/// A socket is counted against the server's limit and booked in its registry before its `101` is
/// written: a client that has its `101` can be ahead of nothing the server does. Each check repeats,
/// since what it guards against was a race (measured before: a second socket past `maxWebSockets: 1`
/// in 8–9 of 40 tries; a stop right after a handshake, a message in flight, missed the socket in 17–43
/// of 100).
@Suite struct WebSocketBookingTests {
    /// Two clients open sockets at once on a server that takes one: exactly one gets its `101`, the
    /// other a `503`, in each of 40 tries.
    @Test func aLimitOfOneLetsInOneSocketOfTwoOpenedAtOnce() async throws {
        var admitted: [Int] = []
        for _ in 0..<40 {
            let mocks = MockRegistry()
            mocks.webSocket("wss://api.example.com/feed") { socket in
                _ = try await socket.receive(timeout: .seconds(10))
            }
            let server = try MockServer(
                serving: mocks, as: ["https://api.example.com"], limits: HTTPServerLimits(maxWebSockets: 1))
            defer { server.stop() }
            let port = server.port
            // Both keep their sockets open until both have their answers: a socket closed first makes room.
            let answered = Tally()
            let statuses = try await withWatchdog(30) {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            try await onOwnThread {
                                Result {
                                    let client = try RawWebSocketClient(port: port, path: "/feed")
                                    defer { client.close() }
                                    let status = try client.readHandshake().status
                                    answered.add()
                                    _ = answered.wait(for: 2, upTo: 10)
                                    if status == 101 { _ = client.sendClose(1000) }
                                    return status
                                }
                            }.get()
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }.sorted()
                }
            }
            #expect(statuses == [101, 503], "statuses of two sockets opened at once with a limit of one")
            admitted.append(statuses.filter { $0 == 101 }.count)
        }
        #expect(admitted.allSatisfy { $0 == 1 }, "sockets admitted per try: \(admitted)")
    }

    /// A hundred servers, each stopped right after its socket's handshake with a message of the
    /// client's in flight: every socket is closed with 1001, is in `mocks.webSockets`, and fails the
    /// registry's test as left open.
    @Test func aStopRightAfterTheHandshakeClosesTheSocketAndFails() async throws {
        let rounds = 100
        let outcomes = try await withWatchdog(120) {
            try await withThrowingTaskGroup(of: (UInt16?, Int, Bool).self) { group in
                for _ in 0..<rounds {
                    group.addTask {
                        let mocks = MockRegistry()
                        mocks.webSocket("wss://api.example.com/echo") { socket in
                            while true { await socket.send(try await socket.receive(timeout: .seconds(30))) }
                        }
                        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
                        let port = server.port
                        let code = try await onOwnThread {
                            Result { () -> UInt16? in
                                let client = try RawWebSocketClient(port: port, path: "/echo", timeout: 10)
                                defer { client.close() }
                                guard try client.readHandshake().status == 101 else { return nil }
                                client.sendText("in flight")
                                server.stop()
                                while true {
                                    let frame = try client.readFrame()
                                    if frame.opcode == 0x8 { return frame.closeCode }
                                }
                            }
                        }.get()
                        let failed = mocks.failures.contains {
                            $0.message.contains("was still open when the test ended")
                        }
                        return (code, mocks.webSockets.count, failed)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let closed = outcomes.filter { $0.0 == 1001 }.count
        let booked = outcomes.filter { $0.1 == 1 }.count
        let failed = outcomes.filter(\.2).count
        #expect(closed == rounds, "\(closed) of \(rounds) sockets were closed with 1001: \(outcomes.map(\.0))")
        #expect(booked == rounds, "\(booked) of \(rounds) sockets were in mocks.webSockets")
        #expect(failed == rounds, "\(failed) of \(rounds) stops failed the test for the open socket")
    }
}
