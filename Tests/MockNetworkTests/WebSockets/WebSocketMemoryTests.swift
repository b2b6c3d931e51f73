import Foundation
import MockNetwork
import MockNetworkServer
import Testing

/// What a socket keeps of its messages is bounded in bytes, not only in count: a long-running socket
/// with large messages does not grow the process.
@Suite struct WebSocketMemoryTests {
    /// The process's resident memory in bytes (`VmRSS` of `/proc/self/status`); `nil` without `/proc`.
    private static func residentBytes() -> Int? {
        guard let data = FileManager.default.contents(atPath: "/proc/self/status") else { return nil }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        let kilobytes = line.flatMap {
            Int($0.dropFirst("VmRSS:".count).dropLast(3).trimmingCharacters(in: .whitespaces))
        }
        return kilobytes.map { $0 * 1024 }
    }

    /// A handler reads and drops 200 binary messages of 512 KB (100 MB in all): the socket's log and the
    /// test's message queue keep at most 4 MiB each (the latest messages). What the process grew by is
    /// printed, not checked: the rest of the suite runs beside it (alone, measured after 20 messages
    /// of the same size warmed it up, it grew by under 16 MB; by 103 MB when both kept every message).
    @Test
    func messagesReadAndDroppedAreNotKept() async throws {
        let mocks = MockRegistry()
        let read = Tally()
        mocks.webSocket("wss://api.example.com/upload") { socket in
            while true {
                _ = try await socket.receive(timeout: .seconds(30))
                read.add()
            }
        }
        // Masked once: the same frame, sent 220 times.
        let frame = RawWebSocketClient.frame(opcode: 0x2, [UInt8](repeating: 0x5A, count: 512 * 1024))
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let port = server.port
        let growth = try await withWatchdog(120) {
            try await onOwnThread {
                Result { () -> Int in
                    let client = try RawWebSocketClient(port: port, path: "/upload", timeout: 30)
                    defer { client.close() }
                    _ = try client.readHandshake()
                    for _ in 0..<20 { client.http.send(frame) }
                    _ = read.wait(for: 20, upTo: 30)
                    let before = Self.residentBytes() ?? 0
                    for _ in 0..<200 { client.http.send(frame) }
                    _ = read.wait(for: 220, upTo: 60)
                    client.sendClose(1000)
                    return (Self.residentBytes() ?? 0) - before
                }
            }.get()
        }
        #expect(read.current == 220, "the handler read \(read.current) of 220 messages")
        print("websocket memory: the process grew by \(growth >> 20) MB over 200 messages of 512 KB")
        let socket = try #require(mocks.webSockets.first)
        let logged = socket.received.reduce(0) { $0 + $1.data.count }
        #expect(logged == 8 * 512 * 1024, "the socket's log keeps \(logged) bytes of messages")
        var queued = 0
        while let (message, _) = try? await mocks.nextWebSocketMessage(timeout: .zero) { queued += message.data.count }
        #expect(queued == 8 * 512 * 1024, "the test's message queue kept \(queued) bytes")

    }
}
