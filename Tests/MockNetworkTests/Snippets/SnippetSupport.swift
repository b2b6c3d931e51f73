import Foundation
import MockNetworkArchives
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// An article's XCTest class whose name another test of this target already has (`DogAPITests`,
// `FeedTests`) is declared inside a test, as written. XCTest on Apple platforms finds every test
// class through the Objective-C runtime and runs such a class itself; XCTest on Linux runs the
// classes at a file's top level only (a class nested in a type breaks its test list), so there the
// enclosing test runs it with `runLocalTests`.

#if !canImport(ObjectiveC)
    extension XCTestCase {
        /// Runs `tests` of `type`, a test class declared inside this test, as XCTest runs a test
        /// class, and fails this test for each of their failures (reported above, with the test's
        /// name) or when they did not all run. Call it last: XCTest on Linux has no current test
        /// after it, so an `XCTAssert` of this test after it is not seen.
        func runLocalTests<Case: XCTestCase>(
            _ type: Case.Type, _ tests: [(String, (Case) -> () throws -> Void)], file: StaticString = #filePath,
            line: UInt = #line
        ) {
            let suite = XCTestSuite(name: "\(type)")
            for (name, test) in tests {
                suite.addTest(type.init(name: name) { try test($0 as! Case)() })
            }
            suite.run()
            let run = suite.testRun
            let failures = run?.totalFailureCount ?? 1
            let ran = run?.executionCount ?? 0
            if failures > 0 || ran != tests.count {
                recordFailure(
                    withDescription: "\(type): \(ran) of \(tests.count) tests ran, with \(failures) failures",
                    inFile: "\(file)", atLine: Int(line), expected: true)
            }
        }
    }
#endif

/// Makes a new temporary folder the current directory until `test` ends, with the archive the
/// archive articles' snippet replays by its relative path, `Tests/Archives/login.har`: a log-in of
/// "ada" (`POST https://api.example.com/login`) answered with the token `t-ada`. XCTest runs one
/// test at a time, so an XCTest test may change the process's current directory for its own run.
func enterFolderWithLoginArchive(_ test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws {
    try XCTSkipIf(
        ProcessInfo.processInfo.environment[HTTPArchive.RecordMode.environmentVariable] == "rewrite",
        "MOCKNETWORK_RECORD=rewrite would record the log-in from the network")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("LoginArchive-\(UUID().uuidString)")
    let archives = folder.appendingPathComponent("Tests/Archives")
    try FileManager.default.createDirectory(at: archives, withIntermediateDirectories: true)
    let login = HTTPArchive.Entry(
        request: HTTPArchive.Request(method: "POST", url: "https://api.example.com/login"),
        response: HTTPArchive.Response(
            status: 200, headers: [HTTPArchive.Header("Content-Type", "application/json")],
            body: HTTPArchive.Body(Data(#"{"token": "t-ada"}"#.utf8), mimeType: "application/json")))
    try HTTPArchive(entries: [login]).write(to: archives.appendingPathComponent("login.har"))
    let previous = FileManager.default.currentDirectoryPath
    XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(folder.path), file: file, line: line)
    test.addTeardownBlock {
        _ = FileManager.default.changeCurrentDirectoryPath(previous)
        try? FileManager.default.removeItem(at: folder)
    }
}

/// The articles' login client (Archives, MockNetworkArchives, Testing with XCTest): posts the user
/// (and password) as JSON, and reads the token from the answer.
struct LoginClient {
    let session: URLSession

    private struct Answer: Decodable {
        let token: String
    }

    /// Logs `user` in, as the archive articles' client does.
    func logIn(user: String) async throws -> String {
        try await post(["user": user], contentType: nil)
    }

    /// Logs `user` in with `password`, as "Testing with XCTest"'s client does.
    func login(user: String, password: String) async throws -> String {
        try await post(["user": user, "password": password], contentType: "application/json")
    }

    private func post(_ fields: [String: String], contentType: String?) async throws -> String {
        var request = URLRequest(url: URL(string: "https://api.example.com/login")!)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(fields)
        let (data, _) = try await session.data(for: request)
        return try JSONDecoder().decode(Answer.self, from: data).token
    }
}
