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

/// Checks that `error` is the `Teapot` a handler failed with, as far as URLSession keeps a
/// protocol's error: on Linux the caller catches the same value; on Apple platforms URLSession
/// rebuilds it as an `NSError`, whose domain names the type (the "Platform differences" article).
func XCTAssertTeapot(
    _ error: (any Error)?, _ expected: Teapot, file: StaticString = #filePath, line: UInt = #line
) {
    #if canImport(FoundationNetworking)
        XCTAssertEqual(error as? Teapot, expected, file: file, line: line)
    #else
        guard let error else { return XCTFail("no error", file: file, line: line) }
        XCTAssertTrue((error as NSError).domain.hasSuffix("Teapot"), "\(error)", file: file, line: line)
    #endif
}

/// Checks a timeout MockNetwork enforces: `URLError(.timedOut)` with MockNetwork's `message`.
///
/// On Apple platforms the URL loading system may run a timer of its own for the request's
/// `timeoutInterval`, started when the task resumed (before `startLoading`, where MockNetwork's
/// starts), so its error can come first: the same code with Apple's message. MockNetwork's message,
/// when it is the one that arrives, must still be exact.
func XCTAssertTimedOut(
    _ error: (any Error)?, message: String, file: StaticString = #filePath, line: UInt = #line
) {
    let urlError = error as? URLError
    XCTAssertEqual(urlError?.code, .timedOut, "\(String(describing: error))", file: file, line: line)
    #if canImport(FoundationNetworking)
        XCTAssertEqual(urlError?.localizedDescription, message, file: file, line: line)
    #else
        if let text = urlError?.localizedDescription, text.hasPrefix("MockNetwork:") {
            XCTAssertEqual(text, message, file: file, line: line)
        }
    #endif
}
