import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Helpers for the request-path tests: a watchdog, so a hang fails instead of stalling the run, and
// a handler's synchronous nested request.

/// The error a watchdog throws when the work it guards does not end in time.
struct Hang: Error, CustomStringConvertible {
    let seconds: TimeInterval
    var description: String { "still running after \(seconds) s: a hang" }
}

/// Ends the test process with a message unless `finished` is set within `seconds`: for a test whose
/// regression would deadlock Foundation's shared queue, after which every later request of the
/// process waits forever and no in-process watchdog helps. The run then fails instead of stalling.
///
/// The watchdog is a thread of its own, not Dispatch's: a process that ran out of Dispatch threads
/// would never run a timer of Dispatch's.
///
/// With `progress`, the message says how far the work got: what it returns when the time is up (read
/// on the watchdog's own thread, so it must not wait on Dispatch or the concurrency pool).
func endRunUnlessFinished(
    _ finished: Shared<Bool>, within seconds: TimeInterval, _ what: String,
    progress: (@Sendable () -> String)? = nil
) {
    Thread.detachNewThread {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if finished.current { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard !finished.current else { return }
        let got = progress.map { " (\($0()))" } ?? ""
        FileHandle.standardError.write(
            Data("error: \(what) still had not finished after \(seconds) s: a hang\(got)\n".utf8))
        exit(1)
    }
}

/// Runs `body`, failing the test (not stalling the run) when it takes longer than `seconds`.
func withWatchdog<T: Sendable>(
    _ seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            XCTFail("still running after \(seconds) s: a hang", file: file, line: line)
            throw Hang(seconds: seconds)
        }
        return value
    }
}

/// The body `session` answers for `url`, as text, waited for on this thread: what a handler that
/// asks another service does.
func textWaitingOnThisThread(_ session: URLSession, _ url: URL) -> String {
    let done = DispatchSemaphore(value: 0)
    let text = Shared("")
    session.dataTask(with: url) { data, _, _ in
        text.update { $0 = String(decoding: data ?? Data(), as: UTF8.self) }
        done.signal()
    }.resume()
    done.wait()
    return text.current
}
