import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class RegistryTests: XCTestCase {
    func testAnswersRegisteredURLWithHandlerResponse() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { request in
            XCTAssertEqual(request.httpMethod, "GET")
            return .json(#"{"name":"Ada"}"#, headers: ["X-Trace": "7"])
        }
        let (data, response) = try await mocks.session.data(
            from: try XCTUnwrap(URL(string: "https://api.example.com/user")))
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 200)
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Trace"), "7")
        XCTAssertEqual(http.url?.absoluteString, "https://api.example.com/user")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"name":"Ada"}"#)
        XCTAssertEqual(mocks.callCount(for: "https://api.example.com/user"), 1)
    }

    func testTutorialShapedHandlerIsAccepted() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/raw") { request in
            let response = HTTPURLResponse(
                url: request.url!, statusCode: 418, httpVersion: nil, headerFields: ["A": "b"])!
            return (response, Data([1, 2, 3]))
        }
        let (data, response) = try await mocks.session.data(from: URL(string: "https://api.example.com/raw")!)
        XCTAssertEqual((response as? HTTPURLResponse)?.statusCode, 418)
        XCTAssertEqual((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "A"), "b")
        XCTAssertEqual(data, Data([1, 2, 3]))
    }
}
