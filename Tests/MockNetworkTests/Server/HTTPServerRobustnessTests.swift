import Foundation
import MockNetworkServer
import XCTest

/// Thousands of bad clients at once: garbage, truncated requests (ended or dropped), heads and bodies
/// too large, smuggling attempts, pipelined floods dropped unread, slow drips and silent connections,
/// good requests among them. The server answers each as it should, keeps answering a good client
/// promptly all along, and ends with no connection open and its memory bounded.
final class HTTPServerRobustnessTests: XCTestCase {
    func testAStormOfBadClientsLeavesTheServerAnsweringAndEmpty() async throws {
        let limits = HTTPServerLimits(maxBodyBytes: 64 * 1024, idleTimeout: 2, lingerTimeout: 0.5)
        let server = try HTTPServer(limits: limits, responder: echo)
        defer { server.stop() }
        let memoryBefore = residentMemory()
        let started = Date()
        let storm = Storm(port: server.port, attacks: 3000, workers: 16, slowClients: 48)
        let report = try await withWatchdog(120) {
            try await offThread { try storm.run() }
        }
        let stormSeconds = Date().timeIntervalSince(started)
        // After the storm, a good request is answered at once, and every connection is gone.
        let afterwards = try await withWatchdog(20) {
            try await offThread { try Storm.timedGoodRequest(port: server.port) }
        }
        try await withWatchdog(20) { await server.waitUntilNoConnections() }
        XCTAssertEqual(server.connectionCount, 0)
        let growth = residentMemory().map { $0 - (memoryBefore ?? $0) }
        print(
            "storm: \(storm.attacks) + \(storm.slowClients) slow clients in \(String(format: "%.2f", stormSeconds)) s, outcomes \(report.outcomes),"
                + " good requests meanwhile \(report.goodRequests) (slowest \(Int(report.slowestGood * 1000)) ms),"
                + " afterwards \(Int(afterwards * 1000)) ms, resident memory +\((growth ?? 0) >> 20) MB")
        XCTAssertEqual(report.unexpected, [], "answers other than expected")
        XCTAssertGreaterThan(report.goodRequests, 0)
        XCTAssertLessThan(report.slowestGood, 2, "a good client waited during the storm")
        XCTAssertLessThan(afterwards, 1, "a good client waited after the storm")
        if let growth { XCTAssertLessThan(growth, 256 << 20, "resident memory grew without bound") }
    }
}

/// The clients of the storm, run on threads of their own (each blocks on its socket, bounded by
/// `RawHTTPClient`'s timeout), and what they saw.
private struct Storm: Sendable {
    let port: Int
    let attacks: Int
    let workers: Int
    /// Clients that drip their request or send nothing, each on a thread of its own (they wait, mostly).
    let slowClients: Int

    struct Report: Sendable {
        var outcomes: [String: Int] = [:]
        var unexpected: [String] = []
        var goodRequests = 0
        var slowestGood: TimeInterval = 0
    }

    /// Kinds of client, one per attack in turn.
    private static let kinds = [
        "garbage", "truncated", "dropped", "bigHead", "bigBody", "bigChunks", "smuggle", "flood", "good",
        "closeAtOnce", "continueThenLeave", "badVersion",
    ]

    func run() throws -> Report {
        let next = Shared(0)
        let report = Shared(Report())
        let stormOver = Shared(false)
        let attackers = DispatchGroup()
        @Sendable func note(_ kind: String, _ index: Int, _ outcome: String, _ expected: Set<String>) {
            report.update { report in
                report.outcomes["\(kind) \(outcome)", default: 0] += 1
                if !expected.contains(outcome) { report.unexpected.append("\(kind) #\(index): \(outcome)") }
            }
        }
        for _ in 0..<workers {
            attackers.enter()
            Thread.detachNewThread {
                defer { attackers.leave() }
                while true {
                    let index = next.update { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < attacks else { return }
                    var random = SplitMix(seed: UInt64(index))
                    let kind = Self.kinds[index % Self.kinds.count]
                    let (outcome, expected) = StormAttacks.attack(kind, port: port, random: &random)
                    note(kind, index, outcome, expected)
                }
            }
        }
        for index in 0..<slowClients {
            attackers.enter()
            Thread.detachNewThread {
                defer { attackers.leave() }
                var random = SplitMix(seed: UInt64(attacks + index))
                let kind = index.isMultiple(of: 2) ? "drip" : "silent"
                let (outcome, expected) = StormAttacks.attack(kind, port: port, random: &random)
                note(kind, index, outcome, expected)
            }
        }
        // A good client all the while, one request after another.
        let goodClient = DispatchGroup()
        goodClient.enter()
        Thread.detachNewThread {
            defer { goodClient.leave() }
            while !stormOver.current {
                let seconds = (try? Self.timedGoodRequest(port: port)) ?? .infinity
                report.update {
                    $0.goodRequests += 1
                    $0.slowestGood = max($0.slowestGood, seconds)
                }
            }
        }
        let attacked = attackers.wait(timeout: .now() + 100)
        stormOver.update { $0 = true }
        guard attacked == .success, goodClient.wait(timeout: .now() + 20) == .success else {
            throw Hang(seconds: 100)
        }
        return report.current
    }

    /// Seconds a fresh connection takes for a good request and its answer.
    static func timedGoodRequest(port: Int) throws -> TimeInterval {
        let start = Date()
        let client = try RawHTTPClient(port: port)
        client.send("POST /good HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\ngood")
        let response = try client.readResponse()
        guard response.status == 200, response.text == "good" else { return .infinity }
        return Date().timeIntervalSince(start)
    }
}

/// The resident memory of this process in bytes, where the system tells it without a private API
/// (Linux's `/proc`); nil elsewhere, where the test skips that check.
private func residentMemory() -> Int? {
    #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
        return nil
    #endif
}
