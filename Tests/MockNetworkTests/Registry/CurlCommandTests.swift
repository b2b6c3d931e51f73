import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class CurlCommandTests: XCTestCase {
    /// The request as the registry recorded it, after sending it through the registry's session.
    private func recorded(
        _ method: String = "GET", _ address: String, headers: [String: String] = [:], body: Data? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> RecordedRequest {
        let mocks = MockRegistry()
        mocks.register(.host("*")) { _ in .status(204) }
        _ = try await send(mocks.session, method, address, headers: headers, body: body, file: file, line: line)
        XCTAssertEqual(mocks.requests.count, 1, file: file, line: line)
        return try XCTUnwrap(mocks.requests.first, file: file, line: line)
    }

    func testPlainGETIsJustTheQuotedURL() async throws {
        let request = try await recorded("GET", "https://api.example.com/dogs?breed=hound&page=2")
        XCTAssertEqual(request.curlCommand, "curl 'https://api.example.com/dogs?breed=hound&page=2'")
    }

    func testMethodHeadersSortedByNameAndBodyWithASingleQuote() async throws {
        let request = try await recorded(
            "POST", "https://api.example.com/dogs",
            headers: [
                "X-Trace": "abc", "Authorization": "Bearer t0k3n", "Accept": "application/json",
                "Content-Type": "application/json",
            ],
            body: Data(#"{"name":"Rex's ball","size":2}"#.utf8))
        XCTAssertEqual(
            request.curlCommand,
            #"curl -X POST -H 'Accept: application/json' -H 'Authorization: Bearer t0k3n' "#
                + #"-H 'Content-Type: application/json' -H 'X-Trace: abc' "#
                + #"--data-binary '{"name":"Rex'\''s ball","size":2}' 'https://api.example.com/dogs'"#)
    }

    func testDeleteWithoutBodyHasNoDataArgument() async throws {
        let request = try await recorded(
            "DELETE", "https://api.example.com/dogs/1", headers: ["Authorization": "Bearer t"])
        XCTAssertEqual(
            request.curlCommand, "curl -X DELETE -H 'Authorization: Bearer t' 'https://api.example.com/dogs/1'")
    }

    func testQuotesInHeaderValuesAndURLAreEscaped() async throws {
        let request = try await recorded(
            "PUT", "https://api.example.com/search?q=it's", headers: ["If-Match": #""v1" 'weak'"#],
            body: Data("a'b'c".utf8))
        XCTAssertEqual(
            request.curlCommand,
            #"curl -X PUT -H 'If-Match: "v1" '\''weak'\''' --data-binary 'a'\''b'\''c' 'https://api.example.com/search?q=it'\''s'"#
        )
    }

    func testBodyThatIsNotUTF8IsWrittenWithHexEscapes() async throws {
        let request = try await recorded(
            "POST", "https://api.example.com/blob", body: Data([0xFF, 0x41, 0x27, 0x5C, 0x0A, 0x80]))
        // A POST body without a type gets Foundation's default, as on the wire.
        XCTAssertEqual(
            request.curlCommand,
            #"curl -X POST -H 'Content-Type: application/x-www-form-urlencoded' --data-binary $'\xffA\'\\\x0a\x80' 'https://api.example.com/blob'"#
        )
    }

    func testMultiLineTextBodyStaysInSingleQuotes() async throws {
        let request = try await recorded(
            "PATCH", "https://api.example.com/note", body: Data("line 1\nline $2 `x`".utf8))
        XCTAssertEqual(
            request.curlCommand, "curl -X PATCH --data-binary 'line 1\nline $2 `x`' 'https://api.example.com/note'")
    }

    func testUploadBodyIsIncluded() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/upload", method: "POST") { _ in .status(201) }
        var request = URLRequest(url: try url("https://api.example.com/upload"))
        request.httpMethod = "POST"
        _ = try await mocks.session.upload(for: request, from: Data("file contents".utf8))
        XCTAssertEqual(
            mocks.requests.first?.curlCommand,
            "curl -X POST --data-binary 'file contents' 'https://api.example.com/upload'")
    }
}
