// The server rows' load: keep-alive connections on plain blocking sockets, a thread each, each
// sending one request after another and reading each answer by its Content-Length. No URLSession:
// its own cost would hide the server's.

import Foundation

/// One keep-alive connection to 127.0.0.1 that sends `GET <path>` and reads whole answers.
final class LoadConnection: @unchecked Sendable {  // used by one thread at a time: made, then handed to its thread
    private let fd: Int32
    private let request: [UInt8]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
    private var filled = 0

    init(port: Int, path: String) throws {
        fd = try LoopbackSockets.connect(port: port)
        request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
    }

    deinit {
        LoopbackSockets.close(fd)
        buffer.deallocate()
    }

    /// Sends the request `times` times, each after the last answer; throws unless every answer is a
    /// 200 with a `Content-Length`.
    func run(times: Int) throws {
        for _ in 0..<times {
            guard request.withUnsafeBytes({ LoopbackSockets.sendAll(fd, $0) }) else {
                throw BenchmarkError(description: "the server closed the connection")
            }
            try readAnswer()
        }
    }

    /// Reads one whole answer, framed by its `Content-Length`.
    private func readAnswer() throws {
        var scanned = 3
        var headEnd = 0
        while headEnd == 0 {
            try fill()
            while scanned < filled {
                if buffer[scanned] == 0x0A, buffer[scanned - 1] == 0x0D, buffer[scanned - 2] == 0x0A,
                    buffer[scanned - 3] == 0x0D
                {
                    headEnd = scanned + 1
                    break
                }
                scanned += 1
            }
        }
        let head = UnsafeRawBufferPointer(rebasing: buffer[0..<headEnd])
        guard head.starts(with: "HTTP/1.1 200 ".utf8), let length = Self.contentLength(head) else {
            throw BenchmarkError(description: "not a 200 with a length: " + String(decoding: head, as: UTF8.self))
        }
        let end = headEnd + length
        while filled < end { try fill() }
        // A keep-alive client sends its next request only after this answer: nothing follows it.
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[end..<filled]))
        filled -= end
    }

    private func fill() throws {
        guard filled < buffer.count else { throw BenchmarkError(description: "an answer larger than 64 KB") }
        let count = LoopbackSockets.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        guard count > 0 else { throw BenchmarkError(description: "the server closed the connection mid-answer") }
        filled += count
    }

    /// The value of the head's `Content-Length` field (its name in any case).
    private static func contentLength(_ head: UnsafeRawBufferPointer) -> Int? {
        let name = Array("\r\ncontent-length:".utf8)
        guard head.count > name.count else { return nil }
        for start in 0..<(head.count - name.count) {
            var matches = true
            for offset in 0..<name.count where head[start + offset] | 0x20 != name[offset] | 0x20 {
                matches = false
                break
            }
            guard matches else { continue }
            var value = 0
            var index = start + name.count
            while index < head.count, head[index] == 0x20 { index += 1 }
            while index < head.count, head[index] >= 0x30, head[index] <= 0x39 {
                value = value * 10 + Int(head[index] - 0x30)
                index += 1
            }
            return value
        }
        return nil
    }
}

/// What a load measured: requests per second (wall time), and the process's CPU time per request in
/// µs (client and server together: on a machine other work shares, the steadier figure).
struct LoadFigures {
    var perSecond: Double
    var cpuMicroseconds: Double
}

/// The CPU time this process has used, in seconds (every thread).
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Sends `total` requests for `path` over `connections` keep-alive connections to 127.0.0.1:`port`,
/// a thread each, one request after another on each, timed from when every connection is open to
/// when the last answer is read.
func load(port: Int, path: String, connections: Int, total: Int) throws -> LoadFigures {
    let clients = try (0..<connections).map { _ in try LoadConnection(port: port, path: path) }
    let each = total / connections
    let failures = Locked([String]())
    let ready = DispatchGroup()
    let done = DispatchGroup()
    let go = DispatchSemaphore(value: 0)
    for client in clients {
        ready.enter()
        done.enter()
        let thread = Thread {
            ready.leave()
            go.wait()
            do {
                try client.run(times: each)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
            done.leave()
        }
        thread.start()
    }
    ready.wait()
    let cpuStart = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in clients { go.signal() }
    done.wait()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let cpu = processCPUSeconds() - cpuStart
    if let failure = failures.withLock({ $0.first }) { throw BenchmarkError(description: failure) }
    let requests = Double(each * connections)
    return LoadFigures(perSecond: requests / elapsed, cpuMicroseconds: cpu / requests * 1e6)
}
