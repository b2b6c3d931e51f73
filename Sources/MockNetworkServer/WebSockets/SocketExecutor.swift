import Dispatch

/// Where a socket handler runs: on its connection's serial queue, where the connection reads.
///
/// A message the connection reads resumes the handler on the same thread, right after the read,
/// with no other thread woken; the handler's `send` writes from there too. Measured with the echo
/// benchmark's client (`Benchmarks/WebSockets`), 8 sockets at once: 61,500 → 71,200 round trips a
/// second, and 25 → 20 µs of the server's CPU a message, against a task on the registry's handler
/// threads, which takes a thread hand-off a message.
///
/// What it costs: a handler that blocks its thread (a synchronous sleep, a semaphore) stalls its
/// own socket's reading, and holds one of Dispatch's threads while it blocks; it never holds a
/// thread of Swift concurrency's pool or another socket's queue. The server takes at most
/// ``HTTPServerLimits/maxWebSockets`` sockets. The task keeps its task-local values (under the
/// `.mockNetwork` trait, the test's), as the executor is a preference for the handler's scope.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class SocketExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` with its jobs on `queue`, where task executors exist (elsewhere, where it is).
    static func run(
        on queue: DispatchQueue, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            try await withTaskExecutorPreference(SocketExecutor(queue)) { try await body() }
        } else {
            try await body()
        }
    }
}
