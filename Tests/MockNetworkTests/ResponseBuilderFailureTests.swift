import Foundation
import MockNetwork
import MockNetworkGraphQL
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response builder given input it cannot use throws nothing (a handler reads `{ _ in .status(401) }`):
/// the response fails its request with the error that says what was wrong, and the test fails at
/// the builder's line with the same words.
final class ResponseBuilderFailureTests: XCTestCase {
    private let url = "https://api.example.com/thing"

    /// The error the request failed with, and the failures the registry recorded.
    private func answer(_ mocks: MockRegistry) async throws -> (error: (any Error)?, failures: [MockFailure]) {
        let error = await thrownError { try await mocks.session.data(from: try XCTUnwrap(URL(string: self.url))) }
        return (error, mocks.takeFailures())
    }

    func testAStatusOutsideTheFinalRangeFailsAtTheBuildersLine() async throws {
        let mocks = MockRegistry()
        let builderLine = #line + 1
        mocks.register(.url(url)) { _ in .status(700) }
        let (error, failures) = try await answer(mocks)
        XCTAssertEqual(error.flatMap(MockNetworkError.init), .invalidStatusCode(700))
        XCTAssertEqual(failures.map(\.message), [MockNetworkError.invalidStatusCode(700).description])
        XCTAssertEqual(failures.first?.location?.line, builderLine, "at the builder, not the registration")
        XCTAssertEqual(failures.first?.location?.fileID, "MockNetworkTests/ResponseBuilderFailureTests.swift")
    }

    func testAValidBuilderIsAnAnswerAndNoFailure() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(url)) { _ in .status(401) }
        let (data, response) = try await mocks.session.data(from: try XCTUnwrap(URL(string: url)))
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 401)
        XCTAssertEqual(data, Data())
        XCTAssertEqual(mocks.failures, [])
    }

    func testAnAnswerRegisteredAsItIsFailsAtRegistrationThoughNoRequestComes() {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register(.url(url), sequence: [.status(200), .redirect(to: "/elsewhere", status: 200)])
        XCTAssertEqual(mocks.failures.map(\.message), [MockNetworkError.invalidRedirectStatus(200).description])
        XCTAssertEqual(mocks.failures.map { $0.location?.line }, [line])
    }

    func testAModifierFailsAtItsOwnLine() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        let response = MockResponse.json(#"{"a": 1}"#).status(99)
        mocks.register(.url(url), answer: response)
        let registered = mocks.takeFailures()
        let (error, failures) = try await answer(mocks)
        XCTAssertEqual(error.flatMap(MockNetworkError.init), .invalidStatusCode(99))
        XCTAssertEqual(registered.map { $0.location?.line }, [line], "at registration, where it was built")
        XCTAssertEqual(failures, [], "recorded once")
    }

    func testAValueJSONCannotEncodeFailsAtTheBuildersLineSayingWhy() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register(.url(url), answer: .json(["ratio": Double.nan]))
        let failures = mocks.takeFailures()
        let (error, _) = try await answer(mocks)
        guard case .unencodableJSON(let type, _)? = error.flatMap(MockNetworkError.init) else {
            return XCTFail("expected unencodableJSON, got \(String(describing: error))")
        }
        XCTAssertEqual(type, "Dictionary<String, Double>")
        XCTAssertEqual(failures.map { $0.location?.line }, [line])
        XCTAssertTrue(failures.first?.message.contains("could not encode") == true, "\(failures)")
    }

    func testAMissingFixtureNamesTheBundleAtTheBuildersLine() async throws {
        let mocks = MockRegistry()
        let bundle = Bundle(for: Self.self)
        let line = #line + 1
        mocks.register(.url(url)) { _ in .fixture("no-such-file", in: bundle) }
        let (error, failures) = try await answer(mocks)
        XCTAssertEqual(
            error.flatMap(MockNetworkError.init), .missingFixture(name: "no-such-file", bundle: bundle.bundleURL.path))
        XCTAssertEqual(failures.map { $0.location?.line }, [line])
    }

    func testAStreamOfANegativeIntervalAndABadCutFailAtTheirLines() async throws {
        let mocks = MockRegistry()
        let streamLine = #line + 1
        let stream = MockResponse.streamed(["a", "b"], every: .milliseconds(-1))
        let cutLine = #line + 1
        let cut = MockResponse.text("abc").failing(after: 9, with: URLError(.networkConnectionLost))
        mocks.register(.url(url), sequence: [stream, cut])
        let registered = mocks.takeFailures()
        let (first, _) = try await answer(mocks)
        let (second, _) = try await answer(mocks)
        XCTAssertTrue("\(first.map { "\($0)" } ?? "")".contains("is negative"), "\(String(describing: first))")
        XCTAssertEqual(registered.map { $0.location?.line }, [streamLine, cutLine])
        XCTAssertTrue(
            "\(second.map { "\($0)" } ?? "")".contains("failing(after: 9) is past the end"),
            "\(String(describing: second))")
    }

    func testAGraphQLAnswerThatIsNoObjectFailsAtTheBuildersLine() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register(.url(url)) { request in .graphQL(data: "[1, 2]", for: request) }
        let (error, failures) = try await answer(mocks)
        XCTAssertEqual((error as? GraphQLFormatError).map { "\($0)" }, failures.first?.message)
        XCTAssertEqual(failures.map { $0.location?.line }, [line])
        XCTAssertTrue(failures.first?.message.contains("is an array") == true, "\(failures)")
    }
}
