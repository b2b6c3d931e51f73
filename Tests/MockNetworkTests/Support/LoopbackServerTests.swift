import Foundation
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Checks `LoopbackServer` with a real `URLSession` over a real socket.
final class LoopbackServerTests: XCTestCase {
    /// A session that goes to the network (no mock protocol classes), with a short timeout.
    private func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }

    func testGetAnswersStatusHeadersAndBodyOfItsRoute() async throws {
        let json = Data(#"{"id":1,"name":"Ada"}"#.utf8)
        let server = try LoopbackServer(routes: [
            "GET /users/1": .init(
                status: 201, headers: [("X-Served-By", "loopback"), ("Content-Type", "application/json")], body: json)
        ])
        defer { server.stop() }
        let session = makeSession()
        defer { session.finishTasksAndInvalidate() }

        let target = try XCTUnwrap(server.url("/users/1"))
        XCTAssertEqual(target.absoluteString, "http://127.0.0.1:\(server.port)/users/1")
        let (data, response) = try await session.data(for: URLRequest(url: target))

        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 201)
        XCTAssertEqual(http.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        XCTAssertEqual(http.value(forHTTPHeaderField: "Content-Type"), "application/json")
        XCTAssertEqual(data, json)
        XCTAssertEqual(server.received.map(\.method), ["GET"])
        XCTAssertEqual(server.received.map(\.target), ["/users/1"])
    }

    func testPostBodyIsRecorded() async throws {
        let server = try LoopbackServer(routes: [
            "POST /users?notify=false": .init(status: 201, text: "created")
        ])
        defer { server.stop() }
        let session = makeSession()
        defer { session.finishTasksAndInvalidate() }

        let payload = Data(#"{"name":"Grace"}"#.utf8)
        var request = URLRequest(url: try XCTUnwrap(server.url("/users?notify=false")))
        request.httpMethod = "POST"
        request.httpBody = payload
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await session.data(for: request)

        XCTAssertEqual(try XCTUnwrap(response as? HTTPURLResponse).statusCode, 201)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "created")
        let received = server.received
        XCTAssertEqual(received.count, 1)
        let recorded = try XCTUnwrap(received.first)
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.target, "/users?notify=false")
        XCTAssertEqual(recorded.body, payload)
        XCTAssertEqual(recorded.header("Content-Type"), "application/json")
        XCTAssertEqual(recorded.headers["content-length"], "\(payload.count)")
    }

    func testUnknownRouteAnswers404() async throws {
        let server = try LoopbackServer(routes: ["GET /known": .init(text: "known")])
        defer { server.stop() }
        let session = makeSession()
        defer { session.finishTasksAndInvalidate() }

        let (data, response) = try await session.data(for: URLRequest(url: try XCTUnwrap(server.url("/missing"))))

        XCTAssertEqual(try XCTUnwrap(response as? HTTPURLResponse).statusCode, 404)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "no route for GET /missing")
        XCTAssertEqual(server.received.map(\.target), ["/missing"])
    }
}
