import MockNetwork

// Each framework only where it exists, so the module builds where either is missing.
#if canImport(Testing)
    import Testing
#endif
#if canImport(XCTest)
    import XCTest
#endif

/// The one way a failure reaches the test runner: `Issue.record` when a Swift Testing test is
/// running on this task, `XCTFail` otherwise.
///
/// Failures noticed on Foundation's threads have no current test there; registries keep them,
/// and they are reported from the test's own task, at the end of the test (see `Lifecycle`).
enum Reporter {
    /// Reports `message`. Swift Testing shows it at `location` (a registration) or else at
    /// `fallback` (the test, or the `verify()` call); XCTest at `file` and `line`, with
    /// `location` named in the message.
    static func fail(
        _ message: String, at location: MockNetwork.SourceLocation?, fallback: MockNetwork.SourceLocation,
        file: StaticString, line: UInt
    ) {
        #if canImport(Testing)
            if Test.current != nil {
                let place = location ?? fallback
                // An issue with MockNetwork's message as its comment, at the user's line: the test
                // threw nothing, so it is no "Caught error".
                Issue.record(
                    Comment(rawValue: message),
                    sourceLocation: Testing.SourceLocation(
                        fileID: place.fileID, filePath: place.filePath, line: place.line, column: place.column))
                return
            }
        #endif
        let text = location.map { message + "\n(registered at \($0))" } ?? message
        #if canImport(XCTest)
            XCTFail(text, file: file, line: line)
        #else
            print("error: \(file):\(line): \(text)")
        #endif
    }
}

#if canImport(XCTest)
    extension Reporter {
        /// Reports `message` as a failure of `testCase`, shown at `location` (a registration); with
        /// none, at the test method on Apple platforms, and at `fallback` on Linux, whose XCTest needs
        /// a file and line for every failure.
        static func fail(
            _ message: String, at location: MockNetwork.SourceLocation?, in testCase: XCTestCase,
            fallback: MockNetwork.SourceLocation
        ) {
            #if canImport(FoundationNetworking)
                let place = location ?? fallback
                testCase.recordFailure(
                    withDescription: message, inFile: place.filePath, atLine: place.line, expected: true)
            #else
                let place = location.map { XCTSourceCodeLocation(filePath: $0.filePath, lineNumber: $0.line) }
                testCase.record(
                    XCTIssue(
                        type: .assertionFailure, compactDescription: message,
                        sourceCodeContext: XCTSourceCodeContext(location: place)))
            #endif
        }
    }
#endif

/// A failure MockNetwork reports to Swift Testing: its description is the message.
#if canImport(Testing)
    extension MockNetwork.SourceLocation {
        /// The place Swift Testing's `location` names. Its `filePath` is public from Swift 6.3
        /// (ST-0020); the toolchains before (Xcode 16.3 to 26.3) spell it `_filePath`.
        init(_ location: Testing.SourceLocation) {
            #if compiler(>=6.3)
                let path = location.filePath
            #else
                let path = location._filePath
            #endif
            self.init(fileID: location.fileID, filePath: path, line: location.line, column: location.column)
        }
    }
#endif
