import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class RequestBodyTests: XCTestCase {
    let payload = Data(#"{"name":"Rex","age":3}"#.utf8)

    /// Registers a handler that echoes the body it sees, and checks both the echo and the log.
    ///
    /// With `upload`, on Apple platforms: Apple's URL loading hands some upload forms to a protocol
    /// without their body, and MockNetwork then fails the request with `uploadBodyUnreachable` and
    /// a test failure, never with an empty body. That is checked when it happens; otherwise the body
    /// must reach the handler as on Linux, where every form does.
    private func assertBodyReachesHandler(
        upload: Bool = false, file: StaticString = #filePath, line: UInt = #line,
        _ send: (MockRegistry, URLRequest) async throws -> Data
    ) async throws {
        let mocks = MockRegistry()
        let target = try url("https://api.example.com/dogs")
        mocks.register(.url(target)) { request in
            XCTAssertEqual(request.httpMethod, "POST", file: file, line: line)
            return .data(request.httpBody ?? Data("<no body>".utf8))
        }
        var request = URLRequest(url: target)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        #if canImport(FoundationNetworking)
            let echoed = try await send(mocks, request)
        #else
            let echoed: Data
            do {
                echoed = try await send(mocks, request)
            } catch let error where upload {
                guard case .uploadBodyUnreachable(let address, let bytes)? = MockNetworkError(error) else {
                    return XCTFail("expected uploadBodyUnreachable, got \(error)", file: file, line: line)
                }
                XCTAssertEqual(address, target.absoluteString, file: file, line: line)
                XCTAssertEqual(bytes, payload.count, file: file, line: line)
                XCTAssertEqual(mocks.takeFailures().count, 1, "reported as a test failure", file: file, line: line)
                XCTAssertEqual(mocks.requests.count, 0, "no handler saw an empty body", file: file, line: line)
                return
            }
        #endif
        XCTAssertEqual(
            String(decoding: echoed, as: UTF8.self), String(decoding: payload, as: UTF8.self), file: file, line: line)
        let recorded = try XCTUnwrap(mocks.requests.first, file: file, line: line)
        XCTAssertEqual(mocks.requests.count, 1, file: file, line: line)
        XCTAssertEqual(recorded.method, "POST", file: file, line: line)
        XCTAssertEqual(recorded.url, target, file: file, line: line)
        XCTAssertEqual(recorded.header("content-type"), "application/json", file: file, line: line)
        XCTAssertEqual(recorded.body, payload, file: file, line: line)
    }

    func testBodyFromHTTPBody() async throws {
        try await assertBodyReachesHandler { mocks, request in
            var request = request
            request.httpBody = self.payload
            return try await mocks.session.data(for: request).0
        }
    }

    func testBodyFromHTTPBodyStream() async throws {
        try await assertBodyReachesHandler { mocks, request in
            var request = request
            request.httpBodyStream = InputStream(data: self.payload)
            return try await mocks.session.data(for: request).0
        }
    }

    func testBodyFromUploadFromData() async throws {
        try await assertBodyReachesHandler(upload: true) { mocks, request in
            try await mocks.session.upload(for: request, from: self.payload).0
        }
    }

    func testBodyFromUploadFromFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mocknetwork-\(UUID().uuidString).json")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await assertBodyReachesHandler(upload: true) { mocks, request in
            try await mocks.session.upload(for: request, fromFile: file).0
        }
    }

    func testBodyFromCompletionUploadTask() async throws {
        try await assertBodyReachesHandler(upload: true) { mocks, request in
            try await withCheckedThrowingContinuation { continuation in
                mocks.session.uploadTask(with: request, from: self.payload) { data, _, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(returning: data ?? Data())
                    }
                }.resume()
            }
        }
    }

    func testRequestsAreRecordedInOrderWithMethodURLHeadersAndBody() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/a") { _ in .status(200) }
        mocks.register("https://api.example.com/b") { _ in .status(201) }
        var put = URLRequest(url: try url("https://api.example.com/b"))
        put.httpMethod = "PUT"
        put.httpBody = Data("v=2".utf8)
        put.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        _ = try await mocks.session.data(from: try url("https://api.example.com/a"))
        _ = try await mocks.session.data(for: put)
        _ = try? await mocks.session.data(from: try url("https://api.example.com/unknown"))

        XCTAssertEqual(mocks.requests.map(\.method), ["GET", "PUT", "GET"])
        XCTAssertEqual(
            mocks.requests.map(\.url.absoluteString),
            ["https://api.example.com/a", "https://api.example.com/b", "https://api.example.com/unknown"])
        XCTAssertEqual(mocks.requests[1].header("authorization"), "Bearer t")
        XCTAssertEqual(mocks.requests[1].bodyText, "v=2")
        XCTAssertEqual(mocks.requests[0].body, Data())
    }
}
