import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Seconds on `clock` (`CLOCK_MONOTONIC`, or a thread's or the process's CPU time).
func seconds(on clock: clockid_t) -> Double {
    var now = timespec()
    clock_gettime(clock, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// What one row measured: the round trips all its sockets made in its time, and the CPU time
/// the process and the client's threads spent on them.
struct RowResult: Sendable {
    /// Round trips completed, over all sockets.
    var messages: Int
    /// From the start signal to the last socket's last echo, in seconds.
    var elapsed: Double
    /// The whole process's CPU time over the row, in seconds (servers and client).
    var processCPU: Double
    /// The client threads' CPU time over the row, in seconds.
    var clientCPU: Double

    /// Round trips a second.
    var perSecond: Double { Double(messages) / elapsed }
    /// The process's CPU time less the client's, per round trip, in microseconds: the server's part.
    var serverMicrosecondsPerMessage: Double { max(0, processCPU - clientCPU) / Double(messages) * 1e6 }
    /// The client's CPU time per round trip, in microseconds.
    var clientMicrosecondsPerMessage: Double { clientCPU / Double(messages) * 1e6 }
}

/// A row's sockets on threads of their own: each connects, waits for the start, then sends a
/// small text message and waits for its echo until the deadline, and counts.
enum LoadRow {
    /// The text each socket sends, 16 bytes.
    static let payload = Array("echo 0123456789!".utf8)

    /// Runs a row off Swift's cooperative pool (which the servers' handlers may need), so the
    /// blocking client never holds one of its threads.
    ///
    /// - Parameters:
    ///   - port: the echo server's port on 127.0.0.1.
    ///   - path: the WebSocket's path, such as `/echo`.
    ///   - sockets: how many sockets, each on a thread of its own.
    ///   - duration: how long the sockets send, in seconds.
    static func run(port: Int, path: String, sockets: Int, duration: Double) async throws -> RowResult {
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<RowResult, any Error>, Never>) in
            let coordinator = Thread {
                continuation.resume(
                    returning: Result { try runBlocking(port: port, path: path, sockets: sockets, duration: duration) })
            }
            coordinator.name = "row coordinator"
            coordinator.start()
        }
        return try outcome.get()
    }

    /// What the threads share: the start time and deadline, and what each found.
    private final class Shared: @unchecked Sendable {
        let lock = NSLock()
        /// Set before the start signal, read after it.
        var deadline = 0.0
        var messages = 0
        var clientCPU = 0.0
        var lastEnd = 0.0
        var failures: [String] = []

        func record(messages: Int, cpu: Double, end: Double) {
            lock.lock()
            defer { lock.unlock() }
            self.messages += messages
            clientCPU += cpu
            lastEnd = max(lastEnd, end)
        }

        func fail(_ failure: any Error) {
            lock.lock()
            defer { lock.unlock() }
            failures.append("\(failure)")
        }
    }

    /// Starts the sockets' threads, lets them go together once all are connected, and waits for
    /// them (each bounded by its socket's timeouts and the deadline). The process's CPU time is
    /// read when every socket has stopped counting, before the sockets close.
    private static func runBlocking(port: Int, path: String, sockets: Int, duration: Double) throws -> RowResult {
        let shared = Shared()
        let connected = DispatchSemaphore(value: 0)
        let start = DispatchSemaphore(value: 0)
        let measured = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        for index in 0..<sockets {
            let thread = Thread {
                defer { finished.signal() }
                let socket: BlockingWebSocket
                do {
                    socket = try BlockingWebSocket(port: port, path: path)
                } catch {
                    shared.fail(error)
                    connected.signal()
                    start.wait()
                    measured.signal()
                    return
                }
                connected.signal()
                start.wait()
                let deadline = shared.deadline
                var scratch = [UInt8]()
                scratch.reserveCapacity(256)
                var count = 0
                let cpuStart = seconds(on: CLOCK_THREAD_CPUTIME_ID)
                var now = seconds(on: CLOCK_MONOTONIC)
                do {
                    while now < deadline {
                        try socket.roundTrip(payload, scratch: &scratch)
                        count += 1
                        now = seconds(on: CLOCK_MONOTONIC)
                    }
                } catch {
                    shared.fail(error)
                }
                shared.record(messages: count, cpu: seconds(on: CLOCK_THREAD_CPUTIME_ID) - cpuStart, end: now)
                measured.signal()
                socket.close()
            }
            thread.name = "socket \(index)"
            thread.start()
        }
        for _ in 0..<sockets { connected.wait() }
        let processStart = seconds(on: CLOCK_PROCESS_CPUTIME_ID)
        let begin = seconds(on: CLOCK_MONOTONIC)
        shared.deadline = begin + duration
        for _ in 0..<sockets { start.signal() }
        for _ in 0..<sockets { measured.wait() }
        let processCPU = seconds(on: CLOCK_PROCESS_CPUTIME_ID) - processStart
        for _ in 0..<sockets { finished.wait() }
        if let failure = shared.failures.first {
            throw RowFailure(description: "\(shared.failures.count) of \(sockets) sockets failed; first: \(failure)")
        }
        return RowResult(
            messages: shared.messages, elapsed: shared.lastEnd - begin, processCPU: processCPU,
            clientCPU: shared.clientCPU)
    }
}

/// A row whose sockets could not connect or whose echoes went wrong.
struct RowFailure: Error, CustomStringConvertible {
    /// What failed.
    let description: String
}
