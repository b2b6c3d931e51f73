import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Stress and bad input: none of it may crash, hang, lose or cross a response.
final class ReliabilityTests: XCTestCase {
    func testStressSixteenTasksOverEightRegistriesLoseAndCrossNothing() async throws {
        let registries = (0..<8).map { _ in MockRegistry() }
        for (index, registry) in registries.enumerated() {
            registry.register(.url("https://api.example.com/echo", query: .ignored)) { request in
                // The body names the registry and repeats the request's id, so a crossed or lost
                // answer cannot pass the check below.
                let id = request.url?.query ?? "?"
                return .text("registry \(index) answers \(id) " + String(repeating: "x", count: index * 37))
            }
        }
        let tasks = 16
        let perTask = 10_000 / tasks
        let started = Date()
        let mismatches = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var bad: [String] = []
                    let index = task % registries.count
                    let registry = registries[index]
                    for request in 0..<perTask {
                        let id = "t\(task)r\(request)"
                        let (data, _) = try await registry.session.data(
                            from: try url("https://api.example.com/echo?\(id)"))
                        let expected = "registry \(index) answers \(id) " + String(repeating: "x", count: index * 37)
                        if data != Data(expected.utf8) {
                            bad.append("\(id): \(String(decoding: data.prefix(60), as: UTF8.self))")
                        }
                    }
                    return bad
                }
            }
            var all: [String] = []
            for try await bad in group { all += bad }
            return all
        }
        XCTAssertEqual(mismatches, [], "responses lost or crossed: \(mismatches.prefix(5))")
        XCTAssertEqual(registries.map { $0.callCount(for: "https://api.example.com/echo") }.reduce(0, +), 10_000)
        XCTAssertEqual(registries.map(\.requests.count), Array(repeating: 2 * perTask, count: 8))
        XCTAssertLessThan(Date().timeIntervalSince(started), 240, "10,000 requests took too long")
        XCTAssertEqual(registries.flatMap(\.failures), [])
    }

    func testFiftyMegabyteBodyArrivesWhole() async throws {
        let mocks = MockRegistry()
        var big = Data(count: 50 * 1024 * 1024)
        for index in stride(from: 0, to: big.count, by: 4096) { big[index] = UInt8(truncatingIfNeeded: index / 4096) }
        let body = big
        mocks.register("https://api.example.com/big") { _ in .data(body) }
        let (data, _) = try await mocks.session.data(from: try url("https://api.example.com/big"))
        XCTAssertEqual(data.count, 50 * 1024 * 1024)
        XCTAssertTrue(data == body, "the 50 MB body changed on the way")
    }

    func testFiftyMegabyteUploadReachesTheHandler() async throws {
        let mocks = MockRegistry()
        let size = Shared(0)
        mocks.register("https://api.example.com/upload") { request in
            size.update { $0 = request.httpBody?.count ?? -1 }
            return .status(204)
        }
        var request = URLRequest(url: try url("https://api.example.com/upload"))
        request.httpMethod = "PUT"
        #if canImport(FoundationNetworking)
            _ = try await mocks.session.upload(for: request, from: Data(count: 50 * 1024 * 1024))
            XCTAssertEqual(size.current, 50 * 1024 * 1024)
        #else
            // Apple's URL loading may hand an upload task to a protocol without its body: then the
            // request fails with `uploadBodyUnreachable`, and the handler never sees an empty body.
            do {
                _ = try await mocks.session.upload(for: request, from: Data(count: 50 * 1024 * 1024))
                XCTAssertEqual(size.current, 50 * 1024 * 1024)
            } catch {
                XCTAssertEqual(MockNetworkError(error)?.errorCode, 10, "uploadBodyUnreachable: \(error)")
                XCTAssertEqual(size.current, 0, "the handler never ran")
                _ = mocks.takeFailures()
            }
        #endif
    }

    func testURLWithoutHostFailsClearly() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/a") { _ in .status(200) }
        let error = await thrownError { try await mocks.session.data(from: try url("https:///no-host")) }
        XCTAssertNotNil(error as? URLError, "\(String(describing: error))")
    }

    func testDataAndFileURLsAreNotLoadedByTheRegistrysSession() async throws {
        let mocks = MockRegistry()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mocknetwork-\(UUID().uuidString).txt")
        try Data("secret file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for address in [file.absoluteString, "data:text/plain;base64,aGVsbG8="] {
            let error = await thrownError { try await mocks.session.data(from: try url(address)) }
            XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable, address)
        }
        XCTAssertEqual(mocks.failures.count, 2)
        // Registered, they are answered like any other URL.
        mocks.register(.url(file)) { _ in .text("mocked file") }
        let (data, _) = try await mocks.session.data(from: file)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "mocked file")
    }

    func testBodyStreamThatFailsMidReadFailsTheRequest() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/upload") { _ in .status(200) }
        var request = URLRequest(url: try url("https://api.example.com/upload"))
        request.httpMethod = "POST"
        request.httpBodyStream = FailingStream(goodBytes: 10)
        let error = await thrownError { try await mocks.session.data(for: request) }
        let urlError = try XCTUnwrap(error as? URLError, "\(String(describing: error))")
        XCTAssertEqual(urlError.code, .cannotDecodeRawData)
        XCTAssertTrue(
            urlError.localizedDescription.contains("body stream failed after 10 bytes"), urlError.localizedDescription)
    }

    func testRemovingHandlersWhileRequestsAreInFlight() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in
            MockResponse.text("chosen before removal").delayed(by: 0.3)
        }
        let pending = (0..<20).map { _ in
            Task { try await mocks.session.data(from: try url("https://api.example.com/slow")) }
        }
        for _ in 0..<200 where mocks.requests.count < 20 { try await Task.sleep(nanoseconds: 10_000_000) }
        mocks.remove("https://api.example.com/slow")
        for task in pending {
            let (data, _) = try await task.value
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "chosen before removal")
        }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/slow")) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
    }

    func testRegistryIsReleasedWhenTheTestLetsGoOfIt() async throws {
        weak var released: MockRegistry?
        do {
            let mocks = MockRegistry()
            released = mocks
            mocks.register("https://api.example.com/a") { _ in .text("a") }
            _ = try await mocks.session.data(from: try url("https://api.example.com/a"))
        }
        for _ in 0..<100 where released != nil { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertNil(released, "the registry outlived its test")
    }
}

/// A body stream that delivers some bytes, then fails.
final class FailingStream: InputStream {
    private var remaining: Int
    private var failed = false
    private var status: Stream.Status = .notOpen

    init(goodBytes: Int) {
        remaining = goodBytes
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { failed ? .error : status }
    override var streamError: (any Error)? { failed ? URLError(.networkConnectionLost) : nil }
    override var hasBytesAvailable: Bool { !failed }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
        guard remaining > 0 else {
            failed = true
            return -1
        }
        let count = min(len, remaining)
        buffer.update(repeating: 65, count: count)
        remaining -= count
        return count
    }
}
