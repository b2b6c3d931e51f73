import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class ErrorTests: XCTestCase {
    func testThrownURLErrorKeepsItsCode() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in throw URLError(.timedOut) }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/slow")) }
        XCTAssertEqual((error as? URLError)?.code, .timedOut)
        XCTAssertEqual(mocks.failures, [], "an error a handler throws on purpose is not a test failure")
    }

    func testThrownCustomErrorArrivesUnchanged() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/teapot") { _ in throw Teapot(reason: "short and stout") }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/teapot")) }
        XCTAssertTeapot(error, Teapot(reason: "short and stout"))
    }

    func testFailureHelpersFailWithTheURLErrorCode() async throws {
        let mocks = MockRegistry()
        let codes: [URLError.Code] = [.notConnectedToInternet, .timedOut, .cannotFindHost, .networkConnectionLost]
        for code in codes {
            mocks.register("https://api.example.com/\(code.rawValue)") { _ in .failure(code) }
        }
        for code in codes {
            let error = await thrownError {
                try await mocks.session.data(from: try url("https://api.example.com/\(code.rawValue)"))
            }
            XCTAssertEqual((error as? URLError)?.code, code)
        }
        mocks.register("https://api.example.com/custom") { _ in .failure(Teapot(reason: "custom")) }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/custom")) }
        XCTAssertTeapot(error, Teapot(reason: "custom"))
    }

    func testCompletionHandlerCallersGetTheSameErrors() throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/offline") { _ in .failure(.notConnectedToInternet) }
        let done = expectation(description: "completion")
        let received = ErrorBox()
        mocks.session.dataTask(with: try url("https://api.example.com/offline")) { data, response, error in
            received.set(error)
            done.fulfill()
        }.resume()
        wait(for: [done], timeout: 10)
        XCTAssertEqual((received.error as? URLError)?.code, .notConnectedToInternet)
    }

    func testInvalidStatusThrowsAClearErrorInsteadOfCrashing() async throws {
        XCTAssertThrowsError(try MockResponse.status(700).validated()) { error in
            XCTAssertEqual(MockNetworkError(error), .invalidStatusCode(700))
            XCTAssertTrue("\(error)".contains("700 is not an HTTP status code. Use a status in 200...599"), "\(error)")
        }
        XCTAssertThrowsError(try MockResponse.json("{}", status: 99).validated())
        XCTAssertNoThrow(MockResponse.json("{}", status: 599))

        let mocks = MockRegistry()
        mocks.register("https://api.example.com/bad") { _ in .status(1000) }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/bad")) }
        XCTAssertEqual(error.flatMap(MockNetworkError.init), .invalidStatusCode(1000))
        XCTAssertEqual(mocks.failures.count, 1)
        XCTAssertEqual(mocks.failures.first?.location?.fileID, "MockNetworkTests/ErrorTests.swift")
    }

    func testResponseForAnotherURLFailsClearly() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/a") { _ in
            let other = try url("https://api.example.com/b")
            return (
                try XCTUnwrap(HTTPURLResponse(url: other, statusCode: 200, httpVersion: nil, headerFields: nil)), Data()
            )
        }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/a")) }
        XCTAssertEqual(
            error.flatMap(MockNetworkError.init),
            .responseURLMismatch(request: "https://api.example.com/a", response: "https://api.example.com/b"))
        XCTAssertTrue(
            mocks.failures.first?.message.contains("Build the HTTPURLResponse with the request's URL") ?? false)
    }

    func testMockNetworkErrorSurvivesTheTripThroughNSErrorThatApplesURLSessionMakes() throws {
        let errors: [MockNetworkError] = [
            .invalidStatusCode(700),
            .responseURLMismatch(request: "https://a.example/x", response: "https://b.example/y"),
            .invalidRedirectStatus(200), .missingFixture(name: "user", bundle: "/tmp/Bundle"),
            .sequenceExhausted(request: "GET https://a.example/x", count: 3),
            .downloadUnsupported("https://a.example/f"),
            .uploadBodyUnreachable("https://a.example/upload", bytes: 12),
            .unencodableJSON(type: "Double", reason: "NaN"),
        ]
        for error in errors {
            // What Apple's URLSession hands the caller: an NSError made from the domain, code and user info.
            let rebuilt = NSError(
                domain: MockNetworkError.errorDomain, code: error.errorCode, userInfo: error.errorUserInfo)
            XCTAssertEqual(MockNetworkError(rebuilt), error)
            XCTAssertEqual(rebuilt.localizedDescription, error.description)
            XCTAssertEqual(MockNetworkError(error as NSError), error, "bridged by Swift")
        }
        XCTAssertEqual(Set(errors.map(\.errorCode)).count, errors.count, "one code per case")
        XCTAssertEqual(MockNetworkError.errorDomain, "MockNetwork.MockNetworkError")
        XCTAssertNil(MockNetworkError(URLError(.timedOut)))
        XCTAssertNil(MockNetworkError(NSError(domain: MockNetworkError.errorDomain, code: 99, userInfo: [:])))
    }

    /// What the "Platform differences" article tells users to compare on Apple platforms holds here too.
    func testHandlersOwnErrorCanBeCheckedByItsDomainOnEveryPlatform() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/tea") { _ in throw Teapot(reason: "short and stout") }
        let error = await thrownError { try await mocks.session.data(from: try url("https://api.example.com/tea")) }
        let bridged = try XCTUnwrap(error) as NSError
        XCTAssertTrue(bridged.domain.hasSuffix("Teapot"), bridged.domain)
    }
}

final class ErrorBox: @unchecked Sendable {  // every access to `stored` holds `lock`
    private let lock = NSLock()
    private var stored: (any Error)?
    func set(_ error: (any Error)?) {
        lock.lock()
        stored = error
        lock.unlock()
    }
    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The error a client gets describes itself with MockNetwork's message: on Linux an `NSError`'s
/// description quoted `"(null)"` where the message goes, and XCTest prints that for a thrown error.
final class SelfDescribingErrorTests: XCTestCase {
    func testAnUnmatchedRequestsErrorStartsWithTheReportsFirstLine() async throws {
        let mocks = MockRegistry()
        do {
            _ = try await mocks.session.data(from: try url("https://api.example.com/nothing"))
            XCTFail("no handler answers it")
        } catch {
            XCTAssertTrue(
                String(describing: error).contains(
                    #"Code=-1008 "MockNetwork: no handler for GET https://api.example.com/nothing"#),
                String(describing: error))
        }
        _ = mocks.takeFailures()
    }
}
