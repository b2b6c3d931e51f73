import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A URL from a string literal, failing the test (not crashing it) when the string is no URL.
func url(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    try XCTUnwrap(URL(string: text), "not a URL: \(text)", file: file, line: line)
}

/// The status code of a response that must be HTTP.
func status(_ response: URLResponse, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
    try XCTUnwrap(response as? HTTPURLResponse, "not an HTTP response", file: file, line: line).statusCode
}

/// The error `body` throws, failing the test when it throws none.
func thrownError<T>(
    file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> T
) async -> (any Error)? {
    do {
        _ = try await body()
        XCTFail("expected an error, got none", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

struct Teapot: Error, Equatable {
    let reason: String
}
