import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class IsolationTests: XCTestCase {
    func testTwoRegistriesAnswerTheSameURLWithTheirOwnHandlersConcurrently() async throws {
        let first = MockRegistry()
        let second = MockRegistry()
        let target = try url("https://api.example.com/whoami")
        first.register(.url(target)) { _ in .text("first") }
        second.register(.url(target)) { _ in .text("second") }

        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<240 {
                let registry = index.isMultiple(of: 2) ? first : second
                group.addTask {
                    let (data, _) = try await registry.session.data(from: target)
                    return (index, String(decoding: data, as: UTF8.self))
                }
            }
            var answers: [Int: String] = [:]
            for try await (index, body) in group { answers[index] = body }
            return answers
        }

        XCTAssertEqual(answers.count, 240)
        let crossed = answers.filter { $0.value != ($0.key.isMultiple(of: 2) ? "first" : "second") }
        XCTAssertEqual(crossed.count, 0, "answers crossed between registries: \(crossed.prefix(5))")
        XCTAssertEqual(first.callCount(for: target.absoluteString), 120)
        XCTAssertEqual(second.callCount(for: target.absoluteString), 120)
        XCTAssertEqual(first.requests.count, 120)
    }

    func testEachRegistryHasItsOwnProtocolClass() {
        let first = MockRegistry()
        let second = MockRegistry()
        XCTAssertFalse(first.protocolClass == second.protocolClass)
        XCTAssertFalse(first.protocolClass == MockURLProtocol.self)
        // Each configuration gets a class of its own (so its timeouts are known), routed to its registry.
        let made: AnyClass? = first.configuration.protocolClasses?.first
        XCTAssertTrue(made is MockURLProtocol.Type)
        XCTAssertFalse(made == second.protocolClass)
        XCTAssertFalse(made == MockURLProtocol.self)
    }

    func testConfigurationRoutesSessionsItBuildsToTheRegistry() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/config") { _ in .text("from configuration") }
        let configuration = mocks.configuration
        configuration.timeoutIntervalForRequest = 5
        let session = URLSession(configuration: configuration)
        let (data, _) = try await session.data(from: try url("https://api.example.com/config"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "from configuration")
    }

    func testSessionsKeepNoCacheAndNoCookies() async throws {
        let mocks = MockRegistry()
        let configuration = mocks.session.configuration
        XCTAssertNil(configuration.urlCache)
        XCTAssertNil(configuration.httpCookieStorage)
        XCTAssertFalse(configuration.httpShouldSetCookies)

        mocks.register("https://api.example.com/login") { _ in
            .status(200, headers: ["Set-Cookie": "session=abc; Path=/"])
        }
        mocks.register("https://api.example.com/me") { _ in .status(200) }
        _ = try await mocks.session.data(from: try url("https://api.example.com/login"))
        _ = try await mocks.session.data(from: try url("https://api.example.com/me"))
        XCTAssertNil(mocks.requests.last?.header("Cookie"))

        // The same URL answered twice: the second answer is the handler's, not a cached copy.
        let counter = Counter()
        mocks.register("https://api.example.com/count") { _ in .text("\(counter.next())") }
        let (a, _) = try await mocks.session.data(from: try url("https://api.example.com/count"))
        let (b, _) = try await mocks.session.data(from: try url("https://api.example.com/count"))
        XCTAssertEqual(String(decoding: a, as: UTF8.self), "1")
        XCTAssertEqual(String(decoding: b, as: UTF8.self), "2")
    }

    func testProcessWideRegistryServesSessionsConfiguredWithMockURLProtocol() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        let session = URLSession(configuration: configuration)
        MockURLProtocol.registry.register("https://classic.example.com/hello") { _ in .text("classic") }
        defer { MockURLProtocol.registry.reset() }

        let (data, _) = try await session.data(from: try url("https://classic.example.com/hello"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "classic")

        // A registry of its own does not see the process-wide handlers.
        let isolated = MockRegistry()
        let error = await thrownError {
            try await isolated.session.data(from: try url("https://classic.example.com/hello"))
        }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertEqual(isolated.failures.count, 1)
    }

    func testSessionMadeFromAReleasedRegistrysConfigurationFailsClearly() async throws {
        var mocks: MockRegistry? = MockRegistry()
        mocks?.register("https://api.example.com/x") { _ in .status(200) }
        // The registry's own session keeps it alive; one made from its configuration does not.
        let session = URLSession(configuration: try XCTUnwrap(mocks?.configuration))
        defer { session.finishTasksAndInvalidate() }
        mocks = nil
        try await Task.sleep(nanoseconds: 20_000_000)  // past the sweep the release starts
        let error = await thrownError { try await session.data(from: try url("https://api.example.com/x")) }
        XCTAssertEqual((error as? URLError)?.code, .resourceUnavailable)
        XCTAssertTrue(
            "\(error.map { $0.localizedDescription } ?? "")".contains("was released"), "\(String(describing: error))")
    }
}

/// A thread-safe counter for handlers.
final class Counter: Sendable {
    private let value = NSLockedInt()
    func next() -> Int { value.increment() }
}

/// The smallest lock box the tests need.
final class NSLockedInt: @unchecked Sendable {  // every access to `count` holds `lock`
    private let lock = NSLock()
    private var count = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
}
