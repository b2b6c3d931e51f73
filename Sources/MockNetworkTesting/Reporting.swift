import MockNetwork
import Testing
import XCTest

/// The one way a failure reaches the test runner: `Issue.record` when a Swift Testing test is
/// running on this task, `XCTFail` otherwise.
enum Reporter {
    static func fail(
        _ message: String,
        fileID: String, filePath: StaticString, line: UInt, column: UInt
    ) {
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: Testing.SourceLocation(
                    fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column)))
        } else {
            XCTFail(message, file: filePath, line: line)
        }
    }

    /// Reports `failure` at its registration when it has one and Swift Testing can take it,
    /// else at the given place.
    static func fail(_ failure: MockFailure, fileID: String, filePath: StaticString, line: UInt, column: UInt) {
        if let location = failure.location, Test.current != nil {
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: Testing.SourceLocation(
                    fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column))
        } else {
            let message = failure.location.map { failure.message + "\n(registered at \($0))" } ?? failure.message
            fail(message, fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}

extension MockRegistry {
    /// Reports every problem this registry noticed (unmatched requests, invalid registrations and
    /// responses) as a failure of the running test, then forgets them.
    ///
    /// Call it at the end of a test, e.g. from `tearDown()`; ``MockNetworkTestCase`` does.
    public func verify(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        for failure in takeFailures() {
            Reporter.fail(failure, fileID: fileID, filePath: filePath, line: line, column: column)
        }
    }
}
