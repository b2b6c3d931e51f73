import Foundation
import MockNetwork
import MockNetworkGraphQL
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The snippets of MockNetworkGraphQL's landing page and article, and of the core's multipart
/// article, as they are written there (a test checks, line for line): they compile here, and run.
final class GraphQLArticleTests: MockNetworkTestCase {
    private let endpoint = "https://api.example.com/graphql"

    /// `GetUser` with its `ID!` variable a string, as Apollo iOS sends it.
    private func getUser(_ id: String) -> URLRequest {
        GraphQLRequests.post(
            #"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"\#(id)"}}"#)
    }

    func testTheOperationSnippets() async throws {
        // Article: Overview
        mocks.register(.graphQL("GetUser", variables: ["id": "7"])) { request in
            .graphQL(data: #"{"user": {"id": "7"}}"#, for: request)
        }
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = operation.variables["id"]?.description ?? "null"
            return .graphQL(data: #"{"user": {"id": \#(id)}}"#, for: request)
        }
        mocks.register(.graphQL(type: .mutation)) { request in
            .graphQL(errors: [.init(message: "Read-only")], for: request)
        }
        // (end of snippet)
        let seven = try await session.data(for: getUser("7")).0
        let eight = try await session.data(for: getUser("8")).0
        XCTAssertEqual(String(decoding: seven, as: UTF8.self), #"{"data":{"user": {"id": "7"}}}"#)
        XCTAssertEqual(String(decoding: eight, as: UTF8.self), #"{"data":{"user": {"id": "8"}}}"#)

        // Article: Checking operations
        let reads = mocks.requests(matching: .graphQL("GetUser"))
        let operation = try XCTUnwrap(reads.first?.graphQLOperation)
        XCTAssertEqual(operation.variables["id"], "7")
        mocks.expect(.graphQL(type: .mutation), count: .never)
        // (end of snippet)
        XCTAssertEqual(reads.count, 2)
    }

    /// The landing page's snippet: a registry of its own, and a handler that reads the operation.
    func testTheLandingPageSnippet() async throws {
        // Landing page
        let mocks = MockRegistry()
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = operation.variables["id"]?.stringValue ?? "?"
            return .graphQL(
                data: #"{"user": {"id": "\#(id)", "name": "Ada"}}"#,
                for: request)
        }
        let client = UserClient(session: mocks.session)
        // (end of snippet)
        let body = try await client.session.data(for: getUser("7")).0
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"data":{"user": {"id": "7", "name": "Ada"}}}"#)
        XCTAssertEqual(mocks.failures, [])
    }

    /// The README's snippet spells the ID as a string, as GraphQL clients such as Apollo iOS send it.
    func testTheReadmeSnippet() async throws {
        // README: GraphQL and uploads
        mocks.register(.graphQL("GetUser", variables: ["id": "7"])) { request in
            .graphQL(data: #"{"user": {"id": "7"}}"#, for: request)
        }
        // (end of snippet)
        let apollo = GraphQLRequests.apollo(
            name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash,
            body: #"{"operationName":"GetUser","query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"7"}}"#)
        let body = try await session.data(for: apollo).0
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"data":{"user": {"id": "7"}}}"#)
        XCTAssertEqual(mocks.failures, [])
    }

    func testTheBatchSnippet() async throws {
        mocks.register(.graphQL("GetUser"), expectedCalls: 2, answer: .graphQL(data: "{}"))
        mocks.register(.graphQL("AddUser"), expectedCalls: 1, answer: .graphQL(data: "{}"))
        let batch = GraphQLRequests.post(
            #"[{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"7"}},"#
                + #"{"query":"mutation AddUser { addUser { id } }"},"#
                + #"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"8"}}]"#)
        _ = try await session.data(for: batch)

        // Article: Checking operations, a batch
        // One batch carried GetUser twice and AddUser once:
        let batches = mocks.requests(matching: .graphQL("GetUser"))
        XCTAssertEqual(batches.count, 1)
        let names = try batches[0].graphQLOperations.map(\.name)
        XCTAssertEqual(names, ["GetUser", "AddUser", "GetUser"])
        mocks.expect(.graphQL("GetUser"), count: .exactly(2))
        // (end of snippet)
        XCTAssertEqual(batches[0].body, batch.httpBody)
        XCTAssertEqual(mocks.requests(matching: .graphQL("AddUser", variables: ["id": "7"])).count, 0)
    }

    private func post(_ document: String, accept: String? = nil, to address: String? = nil) throws -> URLRequest {
        var request = GraphQLRequests.post(#"{"query":"\#(document)"}"#)
        if let address { request.url = try url(address) }
        request.setValue(accept, forHTTPHeaderField: "Accept")
        return request
    }

    private func parts(_ data: Data, _ response: URLResponse) throws -> [String] {
        let type = try XCTUnwrap((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"))
        return try MultipartPart.parts(in: data, contentType: type).map { $0.text ?? "" }
    }

    private func contentType(_ response: URLResponse) -> String? {
        (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
    }

    func testTheAnsweringSnippets() async throws {
        // Article: Answering
        mocks.register(.graphQL("GetUser")) { request in
            .graphQL(
                data: #"{"user": {"id": "7", "friends": null}}"#,
                errors: [
                    .init(
                        message: "Friends are unavailable",
                        locations: [.init(line: 1, column: 42)],
                        path: ["user", "friends"],
                        extensions: ["code": "UNAVAILABLE"])
                ],
                for: request)
        }
        // (end of snippet)
        var asking = getUser("7")
        asking.setValue("application/graphql-response+json, application/json", forHTTPHeaderField: "Accept")
        let (user, userResponse) = try await session.data(for: asking)
        XCTAssertEqual(contentType(userResponse), "application/graphql-response+json; charset=utf-8")
        XCTAssertEqual(
            String(decoding: user, as: UTF8.self),
            #"{"data":{"user": {"id": "7", "friends": null}},"errors":[{"extensions":{"code":"UNAVAILABLE"},"#
                + #""locations":[{"column":42,"line":1}],"message":"Friends are unavailable","#
                + #""path":["user","friends"]}]}"#)

        // Article: Answering, Encodable
        struct User: Encodable {
            let id: String
            let name: String
        }
        mocks.register(.graphQL("GetViewer")) { request in
            .graphQL(data: ["viewer": User(id: "7", name: "Ada")], for: request)
        }
        // (end of snippet)
        let (viewer, viewerResponse) = try await session.data(for: post("query GetViewer { viewer { id } }"))
        XCTAssertEqual(contentType(viewerResponse), "application/json; charset=utf-8")
        XCTAssertEqual(try JSONValue(json: viewer), ["data": ["viewer": ["id": "7", "name": "Ada"]]])

        // Article: Over time
        // query GetProfile { user { id ... @defer(label: "UserBio") { bio } } }
        let first = #"{"data": {"user": {"id": "7"}}, "hasNext": true}"#
        let rest =
            #"{"incremental": [{"label": "UserBio", "data": {"bio": "Hi"},"#
            + #" "path": ["user"]}], "hasNext": false}"#
        mocks.register(.graphQL("GetProfile")) { _ in
            .graphQLMultipart([first, rest], every: .milliseconds(20))
        }
        mocks.register(.graphQL("OnMessage")) { _ in
            .graphQLMultipart(
                [#"{"data": {"message": "Hi"}}"#, #"{"data": {"message": "Bye"}}"#],
                spec: .subscription, every: .milliseconds(20))
        }
        let sse = RequestMatch.graphQL("OnMessage").at("https://sse.example.com")
        mocks.register(sse) { _ in
            .graphQLEvents([#"{"data": {"message": "Hi"}}"#])
        }
        // (end of snippet)
        let (profile, profileResponse) = try await session.data(
            for: post(#"query GetProfile { user { id ... @defer(label: \"UserBio\") { bio } } }"#))
        XCTAssertEqual(
            contentType(profileResponse), #"multipart/mixed; boundary="graphql"; deferSpec=20220824"#)
        XCTAssertEqual(
            try parts(profile, profileResponse),
            [
                #"{"data":{"user":{"id":"7"}},"hasNext":true}"#,
                #"{"hasNext":false,"incremental":[{"data":{"bio":"Hi"},"label":"UserBio","path":["user"]}]}"#,
            ])
        let (messages, messagesResponse) = try await session.data(for: post("subscription OnMessage { message }"))
        XCTAssertEqual(
            try parts(messages, messagesResponse),
            [#"{"payload":{"data":{"message":"Hi"}}}"#, #"{"payload":{"data":{"message":"Bye"}}}"#])
        let (events, eventsResponse) = try await session.data(
            for: post("subscription OnMessage { message }", to: "https://sse.example.com"))
        XCTAssertEqual(contentType(eventsResponse), "text/event-stream")
        XCTAssertEqual(
            String(decoding: events, as: UTF8.self),
            "event: next\ndata: {\"data\":{\"message\":\"Hi\"}}\n\nevent: complete\ndata:\n\n")

        // Multipart article: Answering with parts
        mocks.register("https://api.example.com/report") { _ in
            .multipart([
                MultipartPart(
                    headers: ["Content-Type": "application/json"],
                    body: Data(#"{"pages": 2}"#.utf8)),
                MultipartPart(
                    headers: ["Content-Type": "text/plain"],
                    body: Data("Page one".utf8)),
            ])
        }
        // (end of snippet)
        let (report, reportResponse) = try await session.data(from: try url("https://api.example.com/report"))
        XCTAssertEqual(contentType(reportResponse), #"multipart/mixed; boundary="mocknetwork-boundary""#)
        XCTAssertEqual(try parts(report, reportResponse), [#"{"pages": 2}"#, "Page one"])

        // Multipart article: Answering with parts, over time
        let updates = ["Queued", "Printing", "Done"].map { text in
            MultipartPart(
                headers: ["Content-Type": "text/plain"], body: Data(text.utf8))
        }
        mocks.register("https://api.example.com/jobs/7") { _ in
            .multipart(updates, every: .milliseconds(50))
        }
        // (end of snippet)
        let (job, jobResponse) = try await session.data(from: try url("https://api.example.com/jobs/7"))
        XCTAssertEqual(try parts(job, jobResponse), ["Queued", "Printing", "Done"])
    }

    func testTheUploadSnippets() async throws {
        // Multipart article: Reading and matching uploads
        mocks.register(
            .url("https://api.example.com/avatar")
                .part("avatar", contentType: "image/png")
        ) { _ in .status(201) }
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

    /// Each ```swift block of the articles is a run of lines of this file (a landing page's imports
    /// are among this file's).
    func testEverySnippetIsTheCodeOfATestHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let article = root.appendingPathComponent("Sources/MockNetworkGraphQL/MockNetworkGraphQL.docc/GraphQL.md")
        let trimmed = { (text: String) in
            text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let source = trimmed(try String(contentsOf: here, encoding: .utf8)).joined(separator: "\n")
        let swiftBlocks = { (page: URL) in
            try String(contentsOf: page, encoding: .utf8).components(separatedBy: "```swift\n").dropFirst()
                .map { String($0.components(separatedBy: "\n```")[0]) }
        }
        let blocks = try swiftBlocks(article)
        XCTAssertEqual(blocks.count, 6)
        let multipart = try swiftBlocks(
            root.appendingPathComponent("Sources/MockNetwork/MockNetwork.docc/Multipart.md"))
        XCTAssertEqual(multipart.count, 4)
        let landing = try swiftBlocks(
            root.appendingPathComponent("Sources/MockNetworkGraphQL/MockNetworkGraphQL.docc/MockNetworkGraphQL.md"))
        XCTAssertEqual(landing.count, 1)
        for line in trimmed(landing[0]) where line.hasPrefix("import ") {
            XCTAssertTrue(source.hasPrefix(line) || source.contains("\n" + line + "\n"), "not imported here: \(line)")
        }
        let landingCode = landing.map { trimmed($0).filter { !$0.hasPrefix("import ") }.joined(separator: "\n") }
        let readme = try String(
            contentsOf: article.deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("README.md"), encoding: .utf8)
        let heading = "## MockNetworkGraphQL: GraphQL operations\n"
        let section = readme.components(separatedBy: heading)[1].components(separatedBy: "\n## ")[0]
        let readmeBlocks = section.components(separatedBy: "```swift\n").dropFirst()
            .map { String($0.components(separatedBy: "\n```")[0]) }
        XCTAssertEqual(readmeBlocks.count, 1)
        XCTAssertLessThanOrEqual(section.components(separatedBy: "\n").count, 20, "the README's section grew")
        for block in readmeBlocks {
            XCTAssertTrue(source.contains(trimmed(block).joined(separator: "\n")), "not in a test here:\n\(block)")
        }
        for block in blocks + multipart + landingCode {
            XCTAssertTrue(source.contains(trimmed(block).joined(separator: "\n")), "not in a test here:\n\(block)")
            for line in block.components(separatedBy: "\n") {
                XCTAssertLessThanOrEqual(line.count, 76, "too wide for DocC's code box: \(line)")
            }
        }
    }
}

/// The client the landing page's snippet hands its registry's session to.
private struct UserClient {
    let session: URLSession
}
