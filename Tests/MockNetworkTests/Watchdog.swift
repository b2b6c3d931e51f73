import Foundation
import XCTest

/// The error a watchdog throws when the work it guards does not end in time.
struct Hang: Error, CustomStringConvertible {
    let seconds: TimeInterval
    var description: String { "still running after \(seconds) s: a hang" }
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
