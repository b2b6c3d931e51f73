import Foundation

/// A small seeded generator, so a storm is the same on every run.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// One bad client each: what it did, in a word, and the outcomes the server may rightly give it.
///
/// A client that sends in several steps may be starved of its thread for longer than the server's
/// idle time on a loaded machine (ThreadSanitizer slows every thread several times); the server then
/// rightly answers 408 and closes, or closes a connection on which nothing arrived yet. Those
/// outcomes are allowed where they can happen, and only there.
enum StormAttacks {
    /// What a client whose steps came too slowly rightly gets.
    private static let late: Set<String> = ["408 closed"]

    /// Runs the client of `kind` against the server on `port`: its outcome (the status it got and
    /// whether the server then closed, or what else happened) and the outcomes that are right.
    static func attack(_ kind: String, port: Int, random: inout SplitMix) -> (String, Set<String>) {
        do {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            let post = "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n" + String(repeating: "b", count: 100)
            switch kind {
            case "garbage":
                let alphabet = Array("GET /HTTP1.: \r\n\r\n\t\0é%ABCxyz".utf8) + [0xFF, 0x80, 0x7F]
                let count = Int.random(in: 1...2048, using: &random)
                client.send((0..<count).map { _ in alphabet.randomElement(using: &random)! })
                client.finishSending()
                return (answerThenClose(client), late.union(["400 closed", "closed"]))
            case "truncated", "dropped":
                let cut = Int.random(in: 1..<post.utf8.count, using: &random)
                client.send(Array(post.utf8.prefix(cut)))
                guard kind == "truncated" else { return ("dropped", ["dropped"]) }
                client.finishSending()
                return (answerThenClose(client), late.union(["400 closed", "closed"]))
            case "bigHead":
                client.send("GET / HTTP/1.1\r\nHost: a\r\nX-Big: \(String(repeating: "h", count: 70 * 1024))\r\n\r\n")
                return (answerThenClose(client), ["431 closed"])
            case "bigBody":
                client.send("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 204800\r\n\r\n")
                client.send([UInt8](repeating: 0x62, count: 200 * 1024))
                return (answerThenClose(client), late.union(["413 closed"]))
            case "bigChunks":
                client.send("PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<10 { client.send("2800\r\n" + String(repeating: "c", count: 10 * 1024) + "\r\n") }
                return (answerThenClose(client), late.union(["413 closed"]))
            case "smuggle":
                // The chunks frame the body, and the connection closes after the answer: the bytes
                // after them are never read as a second request.
                client.send(
                    "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                        + "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
                return (answerThenClose(client), ["200 closed"])
            case "badVersion":
                client.send("GET / HTTP/3.0\r\nHost: a\r\n\r\n")
                return (answerThenClose(client), ["505 closed"])
            case "flood":
                client.send(String(repeating: "GET /flood HTTP/1.1\r\nHost: a\r\n\r\n", count: 200))
                return ("dropped", ["dropped"])
            case "closeAtOnce":
                return ("dropped", ["dropped"])
            case "good":
                client.send(post)
                let response = try client.readResponse()
                return (response.body.count == 100 ? "\(response.status)" : "short body", ["200"])
            case "continueThenLeave":
                client.send("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 10\r\n\r\n")
                return ("\(try client.readHead().status)", ["100"])
            case "drip":
                // A byte at a time, each after a pause: the idle time is silence, so the head is read to
                // its end (its size bounds how long that takes) and answered, then the connection is
                // closed once the client is silent.
                let head = Array(
                    "GET /drip HTTP/1.1\r\nHost: a\r\nX-Slow: \(String(repeating: "s", count: 400))\r\n\r\n".utf8)
                for byte in head {
                    guard client.send([byte]), !client.hasDataWaiting(milliseconds: 10) else { break }
                }
                return (answerThenClose(client), late.union(["200 closed"]))
            case "silent":
                return (client.waitForClose() ? "closed" : "left open", ["closed"])
            default:
                return ("unknown kind", [])
            }
        } catch {
            return ("error: \(error)", [])
        }
    }

    /// The status of the answer that arrives and whether the connection then closes, or just
    /// "closed" when it closes with no answer.
    private static func answerThenClose(_ client: RawHTTPClient) -> String {
        guard let response = try? client.readResponse() else { return client.waitForClose() ? "closed" : "left open" }
        return "\(response.status) " + (client.waitForClose() ? "closed" : "left open")
    }
}
