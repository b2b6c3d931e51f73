import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Captures the failures XCTest would record, so a test can assert on what the library reports.
class FailureCapturingTestCase: MockNetworkTestCase {
    var captured: [String] = []
    /// Where each captured failure points: the file's name and the line (`nil` for none).
    var capturedAt: [(file: String, line: Int)?] = []
    var capturing = false

    #if canImport(FoundationNetworking)
        override func recordFailure(
            withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
        ) {
            if capturing {
                captured.append(description)
                capturedAt.append(((filePath as NSString).lastPathComponent, lineNumber))
            } else {
                super.recordFailure(
                    withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
            }
        }
    #else
        override func record(_ issue: XCTIssue) {
            if capturing {
                captured.append(issue.compactDescription)
                capturedAt.append(
                    issue.sourceCodeContext.location.map { ($0.fileURL.lastPathComponent, $0.lineNumber) })
            } else {
                super.record(issue)
            }
        }
    #endif
}

final class TestCaseLifecycleTests: FailureCapturingTestCase {
    var setUpRan = false

    override func setUp() {
        super.setUp()
        setUpRan = true
        // A subclass can register in its own setUp, after super.
        register("https://api.example.com/from-setup") { _ in .text("set up") }
    }

    override func tearDown() {
        // Reported by the base class's tearDown: capture to assert on it, then stop capturing.
        capturing = true
        super.tearDown()
        capturing = false
        if name.contains("testUnmatchedRequestIsReportedAtTearDown") {
            XCTAssertEqual(captured.count, 1)
            XCTAssertTrue(
                captured.first?.contains("MockNetwork: no handler for GET https://api.example.com/from-setup/")
                    ?? false,
                "\(captured)")
            XCTAssertTrue(captured.first?.contains("trailing slash") ?? false, "\(captured)")
        } else {
            XCTAssertEqual(captured, [])
        }
    }

    func testSyncTestGetsRegistryAndSessionFromSetUp() throws {
        XCTAssertTrue(setUpRan)
        XCTAssertEqual(mocks.registered, ["https://api.example.com/from-setup"])
        XCTAssertTrue(session === mocks.session)
        let done = expectation(description: "answered")
        let box = DataBox()
        session.dataTask(with: try url("https://api.example.com/from-setup")) { data, _, _ in
            box.set(data)
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 10)
        XCTAssertEqual(box.text, "set up")
    }

    func testAsyncTestUsesTheRegistry() async throws {
        register("https://api.example.com/async") { request in
            XCTAssertEqual(request.httpMethod, "GET")
            return .json(#"{"ok":true}"#)
        }
        let (data, response) = try await session.data(from: try url("https://api.example.com/async"))
        XCTAssertEqual(try status(response), 200)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"ok":true}"#)
    }

    func testUnmatchedRequestIsReportedAtTearDown() async throws {
        let error = await thrownError { try await session.data(from: try url("https://api.example.com/from-setup/")) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(mocks.failures.count, 1)
    }
}

/// Every test gets a registry of its own: what one test registers, the next does not see.
final class FreshRegistryPerTestTests: MockNetworkTestCase {
    static let seen = Locked<[ObjectIdentifier]>([])

    func testFirst() { check() }
    func testSecond() { check() }

    private func check() {
        XCTAssertEqual(mocks.registered, [])
        register("https://api.example.com/leak") { _ in .status(200) }
        let id = ObjectIdentifier(mocks.protocolClass)
        let seenBefore = Self.seen.value
        XCTAssertFalse(seenBefore.contains(id))
        Self.seen.mutate { $0.append(id) }
    }
}

/// Teams with their own base class: a registry made in `setUp`, verified in `tearDown`.
final class OwnBaseClassTests: XCTestCase {
    var mocks = MockRegistry()

    override func setUp() {
        super.setUp()
        mocks = MockRegistry()
    }

    override func tearDown() {
        mocks.verify()
        super.tearDown()
    }

    func testRegistryWithoutSubclassing() async throws {
        mocks.register("https://api.example.com/own") { _ in .text("own") }
        let (data, _) = try await mocks.session.data(from: try url("https://api.example.com/own"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "own")
    }
}

final class DataBox: @unchecked Sendable {  // every access to `data` holds `lock`
    private let lock = NSLock()
    private var data: Data?
    func set(_ data: Data?) {
        lock.lock()
        self.data = data
        lock.unlock()
    }
    var text: String? {
        lock.lock()
        defer { lock.unlock() }
        return data.map { String(decoding: $0, as: UTF8.self) }
    }
}

/// A value behind a lock, for test bookkeeping.
final class Locked<Value: Sendable>: @unchecked Sendable {  // every access to `stored` holds `lock`
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        body(&stored)
        lock.unlock()
    }
}
