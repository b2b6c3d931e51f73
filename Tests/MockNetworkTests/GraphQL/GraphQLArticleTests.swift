import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The GraphQL article's snippets, as they are written there (a test checks, line for line): they
/// compile here, and run.
final class GraphQLArticleTests: MockNetworkTestCase {
    private let endpoint = "https://api.example.com/graphql"

    private func getUser(_ id: Int) -> URLRequest {
        GraphQLRequests.post(
            #"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":\#(id)}}"#)
    }

    func testTheOperationSnippets() async throws {
        // Article: Overview
        mocks.register(.graphQL("GetUser", variables: ["id": 7])) { request, _ in
            try .graphQL(data: #"{"user": {"id": "7"}}"#, for: request)
        }
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = operation.variables["id"]?.description ?? "?"
            return try .graphQL(data: #"{"user": {"id": "\#(id)"}}"#, for: request)
        }
        mocks.register(.graphQL(type: .mutation)) { request, _ in
            try .graphQL(errors: [.init(message: "Read-only")], for: request)
        }
        // (end of snippet)
        let seven = try await session.data(for: getUser(7)).0
        let eight = try await session.data(for: getUser(8)).0
        XCTAssertEqual(String(decoding: seven, as: UTF8.self), #"{"data":{"user": {"id": "7"}}}"#)
        XCTAssertEqual(String(decoding: eight, as: UTF8.self), #"{"data":{"user": {"id": "8"}}}"#)

        // Article: Checking operations
        let reads = mocks.requests(matching: .graphQL("GetUser"))
        let operation = try XCTUnwrap(reads.first?.graphQLOperation)
        XCTAssertEqual(operation.variables["id"], 7)
        mocks.expect(.graphQL(type: .mutation), count: .never)
        // (end of snippet)
        XCTAssertEqual(reads.count, 2)
    }

    func testTheUploadSnippets() async throws {
        // Article: Uploads
        mocks.register(
            .url("https://api.example.com/avatar")
                .part("avatar", contentType: "image/png")
        ) { _ in try .status(201) }
        // (end of snippet)
        var upload = URLRequest(url: try url("https://api.example.com/avatar"))
        upload.httpMethod = "POST"
        upload.setValue("multipart/form-data; boundary=B", forHTTPHeaderField: "Content-Type")
        upload.httpBody = crlf(
            """
            --B
            Content-Disposition: form-data; name="caption"

            Me
            --B
            Content-Disposition: form-data; name="avatar"; filename="me.png"
            Content-Type: image/png

            PNG
            --B--

            """)
        let status = (try await session.data(for: upload).1 as? HTTPURLResponse)?.statusCode
        XCTAssertEqual(status, 201)

        let parts = try mocks.requests[0].multipartParts
        XCTAssertEqual(parts.map(\.name), ["caption", "avatar"])
    }

    /// Each ```swift block of the article is a run of lines of this file.
    func testEverySnippetIsTheCodeOfATestHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let article = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MockNetwork/MockNetwork.docc/GraphQL.md")
        let trimmed = { (text: String) in
            text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let source = trimmed(try String(contentsOf: here, encoding: .utf8)).joined(separator: "\n")
        let blocks = try String(contentsOf: article, encoding: .utf8).components(separatedBy: "```swift\n").dropFirst()
            .map { String($0.components(separatedBy: "\n```")[0]) }
        XCTAssertEqual(blocks.count, 4)
        let readme = try String(
            contentsOf: article.deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        let section = readme.components(separatedBy: "## GraphQL and uploads\n")[1].components(separatedBy: "\n## ")[0]
        let readmeBlocks = section.components(separatedBy: "```swift\n").dropFirst()
            .map { String($0.components(separatedBy: "\n```")[0]) }
        XCTAssertEqual(readmeBlocks.count, 1)
        XCTAssertLessThanOrEqual(section.components(separatedBy: "\n").count, 20, "the README's section grew")
        for block in readmeBlocks {
            XCTAssertTrue(source.contains(trimmed(block).joined(separator: "\n")), "not in a test here:\n\(block)")
        }
        for block in blocks {
            XCTAssertTrue(source.contains(trimmed(block).joined(separator: "\n")), "not in a test here:\n\(block)")
            for line in block.components(separatedBy: "\n") {
                XCTAssertLessThanOrEqual(line.count, 76, "too wide for DocC's code box: \(line)")
            }
        }
    }
}
