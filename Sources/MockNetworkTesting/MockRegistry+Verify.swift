import MockNetwork

extension MockRegistry {
    /// Reports every problem this registry noticed (unmatched requests, invalid registrations and
    /// responses, handlers not called as often as expected, requests still in flight) as a
    /// failure of the running test, XCTest or Swift Testing, then forgets them.
    ///
    /// Call it at the end of a test, e.g. from `tearDown()`; ``MockNetworkTestCase`` and the
    /// `.mockNetwork` trait do it for you.
    public func verify(
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        let fallback = MockNetwork.SourceLocation(
            fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column))
        Lifecycle.report(self) { failure in
            Reporter.fail(failure.message, at: failure.location, fallback: fallback, file: filePath, line: line)
        }
    }
}
