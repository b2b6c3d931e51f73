import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class ResponseTests: XCTestCase {
    struct Dog: Codable, Equatable {
        let breedName: String
        let goodBoy: Bool
    }

    func testJSONTextSetsContentTypeAndKeepsTheTextAsIs() throws {
        let response = MockResponse.json(#"{"a": 1"#, status: 201)
        XCTAssertEqual(response.status, 201)
        XCTAssertEqual(response.headers, ["Content-Type": "application/json"])
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"a": 1"#)
    }

    func testEncodableUsesTheGivenEncoder() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let response = MockResponse.json(Dog(breedName: "hound", goodBoy: true), encoder: encoder)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"breed_name":"hound","good_boy":true}"#)
        XCTAssertEqual(response.headers["Content-Type"], "application/json")
    }

    func testTextDataAndStatusHelpers() throws {
        let text = MockResponse.text("hello", status: 202)
        XCTAssertEqual(text.headers["Content-Type"], "text/plain; charset=utf-8")
        XCTAssertEqual(text.body, Data("hello".utf8))

        let data = MockResponse.data(Data([0, 255]), headers: ["X-Id": "1"])
        XCTAssertEqual(data.headers, ["Content-Type": "application/octet-stream", "X-Id": "1"])
        XCTAssertEqual(data.body, Data([0, 255]))

        let empty = MockResponse.status(204)
        XCTAssertEqual(empty.status, 204)
        XCTAssertEqual(empty.body, Data())
        XCTAssertEqual(empty.headers, [:])
    }

    func testGivenContentTypeWinsWhateverItsCase() throws {
        let response = MockResponse.json("{}", headers: ["content-type": "application/problem+json"])
        XCTAssertEqual(response.headers, ["content-type": "application/problem+json"])
        let replaced = response.header("Content-Type", "application/vnd.api+json")
        XCTAssertEqual(replaced.headers, ["Content-Type": "application/vnd.api+json"])
    }

    func testResponseReachesTheClientWithStatusHeadersAndBody() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/dog") { _ in
            .json(Dog(breedName: "hound", goodBoy: true), status: 201, headers: ["ETag": "\"v1\""])
        }
        let (data, response) = try await mocks.session.data(from: try url("https://api.example.com/dog"))
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 201)
        XCTAssertEqual(http.value(forHTTPHeaderField: "ETag"), "\"v1\"")
        XCTAssertEqual(try JSONDecoder().decode(Dog.self, from: data), Dog(breedName: "hound", goodBoy: true))
    }

    func testErrorStatusesAreOrdinaryResponses() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/private") { _ in
            .json(#"{"error": "unauthorized"}"#, status: 401)
        }
        let (data, response) = try await mocks.session.data(from: try url("https://api.example.com/private"))
        XCTAssertEqual(try status(response), 401)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"error": "unauthorized"}"#)
    }

    func testRecordedReasonPhrasesAreTheStandardOnesOnEveryPlatform() throws {
        let mocks = MockRegistry()
        let statuses = [200, 204, 301, 404, 418, 422, 429, 503, 599]
        for status in statuses {
            mocks.register("https://api.example.com/status/\(status)") { _ in .status(status) }
        }
        let session = mocks.session
        let done = expectation(description: "answered")
        done.expectedFulfillmentCount = statuses.count
        for status in statuses {
            session.dataTask(with: try url("https://api.example.com/status/\(status)")) { _, _, _ in done.fulfill() }
                .resume()
        }
        wait(for: [done], timeout: 10)
        let phrases = mocks.exportedArchive().entries.map { "\($0.response.status) \($0.response.statusText)" }
        XCTAssertEqual(
            phrases.sorted(),
            [
                "200 OK", "204 No Content", "301 Moved Permanently", "404 Not Found", "418 Client Error",
                "422 Unprocessable Content", "429 Too Many Requests", "503 Service Unavailable", "599 Server Error",
            ])
    }
}
