import Foundation
import MockNetwork
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The code of `MockNetworkServer.docc` is the code of the test here, which runs it against a server,
/// or of the tests of `Examples/ServerSide` (AsyncHTTPClient and a generated OpenAPI client).
final class ServingArticleTests: XCTestCase {
    func testTheArticlesCodeAnswersOverHTTP() async throws {
        try await withWatchdog(20) {
            let mocks = MockRegistry()
            mocks.register("https://api.example.com/user") { _ in
                .json(#"{"name": "Ada"}"#)
            }
            let origin = "https://api.example.com"
            let server = try MockServer(serving: mocks, as: [origin])
            defer { server.stop() }

            // Any HTTP client: here a session of its own.
            let session = URLSession(configuration: .ephemeral)
            let (data, _) = try await session.data(from: server.url("/user"))
            XCTAssertEqual(String(decoding: data, as: UTF8.self), #"{"name": "Ada"}"#)
            let logged = mocks.requests.first?.url.absoluteString
            XCTAssertEqual(logged, "https://api.example.com/user")

            let gate = mocks.hold("https://api.example.com/feed")
            async let feed = session.data(from: server.url("/feed"))
            _ = try await gate.arrived()
            // The client is waiting: check its loading state here.
            gate.release(with: .text("loaded"))
            let (body, _) = try await feed
            XCTAssertEqual(String(decoding: body, as: UTF8.self), "loaded")
            session.finishTasksAndInvalidate()
        }
    }

    func testEverySnippetOfTheCatalogIsCodeOfThisFile() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let catalog = root.appendingPathComponent("Sources/MockNetworkServer/MockNetworkServer.docc")
        // The AsyncHTTPClient and OpenAPI snippets run in the example package, which has those
        // dependencies: its tests are code a snippet may be, each file on its own.
        let example = root.appendingPathComponent("Examples/ServerSide/Tests/TodosTests")
        let exampleFiles = try FileManager.default.contentsOfDirectory(atPath: example.path)
            .filter { $0.hasSuffix(".swift") }.sorted()
        XCTAssertTrue(exampleFiles.contains("ArticleSnippetTests.swift"), "\(exampleFiles)")
        // The article on WebSockets has its own test file.
        let sockets = root.appendingPathComponent("Tests/MockNetworkTests/WebSockets/WebSocketsArticleTests.swift")
        let sources = try ([here, sockets] + exampleFiles.map { example.appendingPathComponent($0) }).map {
            code(try String(contentsOf: $0, encoding: .utf8).components(separatedBy: "\n"))
        }
        let pages = try FileManager.default.contentsOfDirectory(atPath: catalog.path).filter { $0.hasSuffix(".md") }
        XCTAssertEqual(pages.sorted(), ["MockNetworkServer.md", "ServingOverHTTP.md", "WebSockets.md"])
        var count = 0
        for page in pages {
            let text = try String(contentsOf: catalog.appendingPathComponent(page), encoding: .utf8)
            for block in swiftBlocks(in: text) {
                count += 1
                let lines = code(block)
                let found = sources.contains { source in
                    (0...max(0, source.count - lines.count)).contains {
                        $0 + lines.count <= source.count && Array(source[$0..<$0 + lines.count]) == lines
                    }
                }
                XCTAssertTrue(
                    found,
                    "\(page): a snippet that is not the code of this file or the example's tests:\n"
                        + block.joined(separator: "\n"))
                for line in block where line.count > 74 {
                    XCTAssertLessThanOrEqual(line.count, 74, "\(page): too wide for DocC's code box: \(line)")
                }
            }
        }
        XCTAssertEqual(count, 14)
    }

    /// `lines` trimmed, without blank lines.
    private func code(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
