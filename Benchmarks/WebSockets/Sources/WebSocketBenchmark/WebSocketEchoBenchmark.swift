import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Round trips a second of two WebSocket echo servers, hummingbird-websocket's and MockServer's,
/// over 1 socket and over 8 (a thread each), measured by the same blocking client in interleaved
/// rounds.
///
/// Usage: `WebSocketBenchmark [seconds per row, default 2] [rounds, at least 3, default 5]`, or
/// `WebSocketBenchmark serve SECONDS` to run both echo servers (messages up to 16 MiB) for a
/// conformance suite: it prints each one's URL, a line each (`Hummingbird ws://127.0.0.1:…/echo`),
/// then serves until the time has passed (`scripts/autobahn --compare` puts their reports side by side).
@main
enum WebSocketEchoBenchmark {
    /// One row of the table: a server and a number of sockets.
    struct Row: Sendable {
        /// The row's label, such as `1h`.
        let label: String
        /// The server's name.
        let server: String
        /// How many sockets send at once.
        let sockets: Int
        /// What each round measured.
        var results: [RowResult] = []
    }

    /// Runs the rounds and prints the table; exits non-zero when a server could not be measured.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.count == 2, arguments[0] == "serve", let seconds = Double(arguments[1]), seconds > 0 {
            do {
                let servers = [
                    ("Hummingbird", try await EchoServers.hummingbird(maxSize: 16 << 20)),
                    ("MockServer", try await EchoServers.mockServer()),
                ]
                for (name, server) in servers {
                    // Written at once, not buffered: a script reads the URLs while this serves.
                    FileHandle.standardOutput.write(Data("\(name) ws://127.0.0.1:\(server.port)\(server.path)\n".utf8))
                }
                try await Task.sleep(for: .seconds(seconds))
                withExtendedLifetime(servers) {}  // a MockServer stops when released
            } catch {
                print("WebSocketBenchmark failed: \(error)")
                exit(1)
            }
            exit(0)
        }
        let rowSeconds = arguments.count > 0 ? Double(arguments[0]) : 2
        let rounds = arguments.count > 1 ? Int(arguments[1]) : 5
        guard let rowSeconds, let rounds, rowSeconds > 0, rowSeconds <= 60, rounds >= 3, rounds <= 50,
            arguments.count <= 2
        else {
            print("usage: WebSocketBenchmark [seconds per row, 0 to 60, default 2] [rounds, 3 to 50, default 5]")
            exit(64)
        }
        // A row lasts its time, plus at most 5 s for its sockets to connect, 5 s for the last round
        // trip and 6 s to close, before its error ends the run; this ends the process whatever hangs.
        let budget = 30 + Double(rounds + 1) * 4 * (rowSeconds + 16)
        startWatchdog(after: budget)

        do {
            try await measure(rowSeconds: rowSeconds, rounds: rounds)
        } catch {
            print("WebSocketBenchmark failed: \(error)")
            exit(1)
        }
        exit(0)
    }

    /// Starts both servers, warms each up, runs `rounds` rounds of the four rows and prints the table.
    static func measure(rowSeconds: Double, rounds: Int) async throws {
        let servers = [
            "Hummingbird": try await EchoServers.hummingbird(),
            "MockServer": try await EchoServers.mockServer(),
        ]

        var rows = [
            Row(label: "1h", server: "Hummingbird", sockets: 1),
            Row(label: "1m", server: "MockServer", sockets: 1),
            Row(label: "8h", server: "Hummingbird", sockets: 8),
            Row(label: "8m", server: "MockServer", sockets: 8),
        ]

        for row in rows {
            let server = servers[row.server]!
            _ = try await LoadRow.run(
                port: server.port, path: server.path, sockets: row.sockets, duration: min(0.5, rowSeconds))
        }
        for round in 0..<rounds {
            // A B A B, with the servers' order swapped every other round.
            for index in round % 2 == 0 ? [0, 1, 2, 3] : [1, 0, 3, 2] {
                let server = servers[rows[index].server]!
                let result = try await LoadRow.run(
                    port: server.port, path: server.path, sockets: rows[index].sockets, duration: rowSeconds)
                rows[index].results.append(result)
            }
        }
        print(report(rows, rowSeconds: rowSeconds, rounds: rounds))
        fflush(nil)
    }

    /// The table: each row's median and best round trips a second, its server's and the client's
    /// CPU time per round trip (medians), each round's figure, and MockServer's ratios to Hummingbird.
    static func report(_ rows: [Row], rowSeconds: Double, rounds: Int) -> String {
        var build = "release build"
        #if DEBUG
            build = "DEBUG build: figures mean little, run with -c release"
        #endif
        var lines = [
            "WebSocket echo: round trips of a \(LoadRow.payload.count)-byte text message, "
                + "\(format(rowSeconds, 1)) s a row, \(rounds) interleaved rounds, \(build)",
            pad("row", 28) + padLeft("msg/s median", 14) + padLeft("best", 10) + padLeft("server µs CPU/msg", 19)
                + padLeft("client µs CPU/msg", 19),
        ]
        for row in rows {
            let name = "\(row.label) \(row.server), \(row.sockets) socket\(row.sockets == 1 ? "" : "s")"
            lines.append(
                pad(name, 28) + padLeft(format(median(row.results.map(\.perSecond)), 0), 14)
                    + padLeft(format(row.results.map(\.perSecond).max() ?? 0, 0), 10)
                    + padLeft(format(median(row.results.map(\.serverMicrosecondsPerMessage)), 1), 19)
                    + padLeft(format(median(row.results.map(\.clientMicrosecondsPerMessage)), 1), 19))
        }
        for sockets in [1, 8] {
            let pair = rows.filter { $0.sockets == sockets }
            guard let hummingbird = pair.first(where: { $0.server == "Hummingbird" }),
                let mock = pair.first(where: { $0.server == "MockServer" })
            else { continue }
            let medianRatio =
                median(mock.results.map(\.perSecond)) / median(hummingbird.results.map(\.perSecond))
            let bestRatio =
                (mock.results.map(\.perSecond).max() ?? 0) / (hummingbird.results.map(\.perSecond).max() ?? 1)
            lines.append(
                "MockServer / Hummingbird, \(sockets) socket\(sockets == 1 ? ": " : "s:") "
                    + "\(format(medianRatio, 2))× (medians), \(format(bestRatio, 2))× (bests)")
        }
        lines.append("each round, msg/s:")
        for row in rows {
            lines.append("  \(pad(row.label, 3))" + row.results.map { padLeft(format($0.perSecond, 0), 8) }.joined())
        }
        return lines.joined(separator: "\n")
    }

    /// Ends the process with status 2 after `seconds`, saying so, whatever is still running.
    static func startWatchdog(after seconds: Double) {
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: seconds)
            FileHandle.standardError.write(
                Data("WebSocketBenchmark: still running after \(Int(seconds)) s, ended\n".utf8))
            exit(2)
        }
        watchdog.name = "watchdog"
        watchdog.start()
    }

    /// The middle value (the mean of the two middle ones for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// `value` with `digits` decimals.
    static func format(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `text` padded with spaces on the right to `width`.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` padded with spaces on the left to `width`.
    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }
}
