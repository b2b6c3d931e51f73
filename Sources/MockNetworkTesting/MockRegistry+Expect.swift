import MockNetwork

extension MockRegistry {
    /// Checks, after the fact, that the requests `match` describes came as often as `count` says,
    /// and fails the running test (XCTest or Swift Testing) at this line otherwise, naming the
    /// requests seen and the one nearest to the match.
    ///
    /// ```swift
    /// mocks.expect(.url("https://api.example.com/orders").method("POST"), count: .exactly(2))
    /// mocks.expect(.host("tracker.example.com"), count: .never)
    /// ```
    ///
    /// A GraphQL match counts operations, not requests: each request that carries one operation it
    /// describes, and each operation of a batch (a JSON array of operations) it describes, so
    /// `expect(.graphQL("GetUser"), count: .exactly(2))` holds for two requests or for one batch
    /// that carried `GetUser` twice, as the handler's `expectedCalls` counts them. The requests
    /// themselves, a batch once, are what `requests(matching:)` returns.
    public func expect(
        _ match: RequestMatch, count: RequestCount = .atLeast(1),
        fileID: String = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
    ) {
        guard let message = countFailure(match, count) else { return }
        let here = MockNetwork.SourceLocation(
            fileID: fileID, filePath: "\(filePath)", line: Int(line), column: Int(column))
        Reporter.fail(message, at: nil, fallback: here, file: filePath, line: line)
    }
}
