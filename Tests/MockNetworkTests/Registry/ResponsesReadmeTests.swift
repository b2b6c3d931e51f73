import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The README's "Responses" snippet as it is written there: it compiles here, and runs.

private struct Dog: Encodable {
    let name: String
}

private enum MyError: Error {
    case odd
}

/// The README's client: whatever code takes a session.
private struct APIClient {
    let session: URLSession
}

final class ResponsesReadmeTests: XCTestCase {
    func testTheResponsesSnippet() async throws {
        let encoder = JSONEncoder()
        let png = Data([0x89, 0x50, 0x4E, 0x47])

        let mocks = MockRegistry()  // its own handlers, its own URLSession
        mocks.register("https://api.example.com/user") { request in
            .json(#"{"name": "Ada"}"#)  // Content-Type: application/json
        }
        mocks.register("https://api.example.com/dog") { _ in .json(Dog(name: "Rex"), encoder: encoder) }
        mocks.register("https://api.example.com/avatar") { _ in
            .data(png, headers: ["Content-Type": "image/png"])
        }
        mocks.register("https://api.example.com/motd") { _ in .text("hello") }
        mocks.register("https://api.example.com/gone") { _ in .status(410) }
        mocks.register("https://api.example.com/feed") { _ in .failure(.notConnectedToInternet) }
        mocks.register("https://api.example.com/odd") { _ in throw MyError.odd }  // the caller gets MyError.odd
        mocks.register("https://api.example.com/flags", answer: .json(#"{"beta": true}"#))  // no closure: fastest

        let client = APIClient(session: mocks.session)  // or URLSession(configuration: mocks.configuration)

        let dog = try await send(client.session, "GET", "https://api.example.com/dog")
        XCTAssertEqual(dog.text, #"{"name":"Rex"}"#)
        let avatar = try await send(client.session, "GET", "https://api.example.com/avatar")
        XCTAssertEqual(avatar.body, png)
        XCTAssertEqual(avatar.response.value(forHTTPHeaderField: "Content-Type"), "image/png")
        let gone = try await send(client.session, "GET", "https://api.example.com/gone")
        XCTAssertEqual(gone.status, 410)
        let flags = try await send(client.session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(flags.text, #"{"beta": true}"#)
        do {
            _ = try await send(client.session, "GET", "https://api.example.com/feed")
            XCTFail("the offline answer was a response")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .notConnectedToInternet)
        }
    }
}
