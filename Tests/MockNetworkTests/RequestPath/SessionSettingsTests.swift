import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client that makes its session the way LaunchDarkly's swift-eventsource does: it copies the
/// configuration it is given, sets its own headers and timeout on the copy, and makes its session
/// from the copy. The settings that apply are those of the session that made the task.
private final class CopyingClient: Sendable {
    let session: URLSession

    init(configuration: URLSessionConfiguration, timeout: TimeInterval? = nil) {
        let copy = configuration.copy() as! URLSessionConfiguration
        var headers = copy.httpAdditionalHeaders ?? [:]
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        copy.httpAdditionalHeaders = headers
        if let timeout { copy.timeoutIntervalForRequest = timeout }
        session = URLSession(configuration: copy)
    }

    func get(_ address: String) async throws -> (Data, URLResponse) {
        try await session.data(from: try url(address))
    }
}

final class SessionSettingsTests: XCTestCase {
    private let address = "https://api.example.com/stream"

    /// Registers `address` and keeps the headers each request arrived with.
    private func recordingHeaders(_ mocks: MockRegistry) -> Shared<[[String: String]]> {
        let seen = Shared<[[String: String]]>([])
        mocks.register(.url(address)) { request in
            seen.update { $0.append(request.allHTTPHeaderFields ?? [:]) }
            return .text("ok")
        }
        return seen
    }

    func testHeadersSetOnACopyOfTheRegistrysConfigurationReachTheHandler() async throws {
        let mocks = MockRegistry()
        let seen = recordingHeaders(mocks)
        let client = CopyingClient(configuration: mocks.configuration)
        _ = try await client.get(address)
        XCTAssertEqual(seen.current.first?["Accept"], "text/event-stream")
        XCTAssertEqual(seen.current.first?["Cache-Control"], "no-cache")
        XCTAssertEqual(mocks.requests.first?.request.value(forHTTPHeaderField: "Accept"), "text/event-stream")
    }

    func testHeadersSetOnACopyOfTheRegistrysOwnSessionsConfigurationReachTheHandler() async throws {
        let mocks = MockRegistry()
        let seen = recordingHeaders(mocks)
        let client = CopyingClient(configuration: mocks.session.configuration)
        _ = try await client.get(address)
        XCTAssertEqual(seen.current.first?["Accept"], "text/event-stream")
        // The registry's own session is untouched by the copy.
        _ = try await mocks.session.data(from: try url(address))
        XCTAssertNil(seen.current.last?["Accept"])
    }

    func testHeadersSetOnAConfigurationAfterItsSessionWasMadeDoNotApply() async throws {
        let mocks = MockRegistry()
        let seen = recordingHeaders(mocks)
        let configuration = mocks.configuration
        configuration.httpAdditionalHeaders = ["X-Before": "1"]
        let session = URLSession(configuration: configuration)
        // Foundation froze a copy when the session was made: what changes later is not the session's.
        configuration.httpAdditionalHeaders = ["X-After": "2"]
        _ = try await session.data(from: try url(address))
        XCTAssertEqual(seen.current.first?["X-Before"], "1")
        XCTAssertNil(seen.current.first?["X-After"])
    }

    func testATimeoutSetOnACopyApplies() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(address)) { _ in .text("late").delayed(by: 5) }
        let client = CopyingClient(configuration: mocks.configuration, timeout: 0.3)
        let started = DispatchTime.now()
        let error = await thrownError { try await client.get(self.address) }
        XCTAssertEqual((error as? URLError)?.code, .timedOut, "\(String(describing: error))")
        let waited = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        XCTAssertLessThan(waited, 4, "the copy's 0.3 s timeout did not apply")
    }

    func testAURLCacheSetOnACopyKeepsAnswers() async throws {
        let mocks = MockRegistry()
        let calls = Shared(0)
        mocks.register(.url(address)) { _ in
            calls.update { $0 += 1 }
            return .text("kept", headers: ["Cache-Control": "max-age=60"])
        }
        // A copy with a cache of its own (and no `Cache-Control: no-cache`, which would always ask).
        let copy = mocks.configuration.copy() as! URLSessionConfiguration
        copy.urlCache = URLCache(memoryCapacity: 1_000_000, diskCapacity: 0, diskPath: nil)
        let session = URLSession(configuration: copy)
        for _ in 0..<2 {
            let (data, _) = try await session.data(from: try url(address))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), "kept")
        }
        XCTAssertEqual(calls.current, 1, "the copy's URL cache was not used")
    }

    func testCookiesOfACopysStorageAreSentAndStored() async throws {
        let mocks = MockRegistry()
        let seen = Shared<[String]>([])
        mocks.register("https://api.example.com/login") { _ in
            .text("in", headers: ["Set-Cookie": "session=abc; Path=/"])
        }
        mocks.register("https://api.example.com/me") { request in
            seen.update { $0.append(request.value(forHTTPHeaderField: "Cookie") ?? "none") }
            return .text("me")
        }
        let copy = mocks.configuration.copy() as! URLSessionConfiguration
        copy.httpCookieStorage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: UUID().uuidString)
        copy.httpShouldSetCookies = true
        copy.httpCookieAcceptPolicy = .always
        let session = URLSession(configuration: copy)
        _ = try await session.data(from: try url("https://api.example.com/login"))
        _ = try await session.data(from: try url("https://api.example.com/me"))
        XCTAssertEqual(seen.current, ["session=abc"])
    }
}
