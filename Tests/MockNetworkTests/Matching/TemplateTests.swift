import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Path templates with captured parameters, and partial query matches.
final class TemplateTests: XCTestCase {
    private func text(_ mocks: MockRegistry, _ address: String) async throws -> String {
        let (data, _) = try await mocks.session.data(from: try url(address))
        return String(decoding: data, as: UTF8.self)
    }

    private func failure(_ mocks: MockRegistry, _ address: String) async -> String {
        _ = await thrownError { _ = try await mocks.session.data(from: try url(address)) }
        return mocks.takeFailures().map(\.message).joined(separator: "\n")
    }

    func testATemplateCapturesItsParametersByName() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}/posts/{postID}") { _, parameters in
            .text("user \(parameters["id"] ?? "?") post \(parameters["postID"] ?? "?")")
        }

        let answer = try await text(mocks, "https://api.example.com/v1/users/42/posts/7")

        XCTAssertEqual(answer, "user 42 post 7")
    }

    func testAPercentEncodedLiteralSegmentMatchesAsAnExactURLWould() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/files/my%20docs/{name}") { _, parameters in
            .text("file \(parameters["name"] ?? "?")")
        }
        mocks.register("https://api.example.com/files/a%2Fb/{name}") { _, parameters in
            .text("slashed \(parameters["name"] ?? "?")")
        }

        let answer = try await text(mocks, "https://api.example.com/files/my%20docs/report.pdf")
        let slashed = try await text(mocks, "https://api.example.com/files/a%2Fb/x")

        XCTAssertEqual(answer, "file report.pdf")
        XCTAssertEqual(slashed, "slashed x")
        XCTAssertEqual(mocks.failures, [])
    }

    func testCapturedValuesArePercentDecodedAndAnEncodedSlashStaysInItsSegment() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/v1/users/{id}/posts/{postID}")) { _, parameters in
            .text("\(parameters["id"] ?? "?")|\(parameters["postID"] ?? "?")")
        }

        let answer = try await text(mocks, "https://api.example.com/v1/users/ada%20l/posts/x%2Fy")

        XCTAssertEqual(answer, "ada l|x/y")
    }

    func testAParameterNeverCrossesASlashNorMatchesAnEmptySegment() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}") { _ in .text("user") }

        let crossing = await failure(mocks, "https://api.example.com/v1/users/1/2")
        let empty = await failure(mocks, "https://api.example.com/v1/users/")

        XCTAssertTrue(
            crossing.contains(
                "path \"/v1/users/1/2\" has 4 segments, the template \"/v1/users/{id}\" 3"), crossing)
        XCTAssertTrue(empty.contains("path segment 3 is empty, and {id} needs a value"), empty)
    }

    func testATrailingCatchAllTakesTheRestOfThePath() async throws {
        let mocks = MockRegistry()
        mocks.register("https://cdn.example.com/files/{path*}") { _, parameters in
            .text("[\(parameters["path"] ?? "?")]")
        }

        let deep = try await text(mocks, "https://cdn.example.com/files/a/b/c.txt")
        let none = try await text(mocks, "https://cdn.example.com/files")

        XCTAssertEqual(deep, "[a/b/c.txt]")
        XCTAssertEqual(none, "[]")
    }

    func testALiteralSegmentOutranksAParameterWhateverTheOrder() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}") { _ in .text("users") }
        mocks.register("https://api.example.com/v1/{kind}/{id}") { _ in .text("any kind") }

        let users = try await text(mocks, "https://api.example.com/v1/users/5")
        let teams = try await text(mocks, "https://api.example.com/v1/teams/5")

        XCTAssertEqual(users, "users")
        XCTAssertEqual(teams, "any kind")
    }

    func testATemplateOutranksAHostPatternAndAnExactURLOutranksBoth() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}") { _ in .text("template") }
        mocks.register(.host("api.example.com", path: "/v1/users/*")) { _ in .text("pattern") }
        mocks.register("https://api.example.com/v1/users/me") { _ in .text("exact") }

        let five = try await text(mocks, "https://api.example.com/v1/users/5")
        let me = try await text(mocks, "https://api.example.com/v1/users/me")

        XCTAssertEqual(five, "template")
        XCTAssertEqual(me, "exact")
    }

    func testATemplateOnAHostPattern() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("*.example.com", path: "/items/{id}").method("GET")) { request, parameters in
            .text("\(request.url?.host ?? "") \(parameters["id"] ?? "?")")
        }

        let answer = try await text(mocks, "https://eu.example.com/items/9")

        XCTAssertEqual(answer, "eu.example.com 9")
    }

    func testAFullURLTemplateKeepsItsSchemeHostAndPort() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}") { _ in .text("user") }

        let message = await failure(mocks, "http://api.example.com/v1/users/5")

        XCTAssertTrue(message.contains("origin http://api.example.com ≠ https://api.example.com"), message)
    }

    func testTheNearestMatchNamesTheSegmentThatDiffered() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/users/{id}/posts/{postID}") { _ in .text("post") }

        let message = await failure(mocks, "https://api.example.com/v1/users/42/comments/7")

        XCTAssertTrue(
            message.contains(
                "Nearest: https://api.example.com/v1/users/{id}/posts/{postID} (path segment 4 \"comments\" ≠ "
                    + "\"posts\" (path \"/v1/users/42/comments/7\", template \"/v1/users/{id}/posts/{postID}\"))"),
            message)
    }

    func testABadTemplateIsAClearFailureAndRegistersNothing() {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v{version}/users") { _ in .text("no") }
        mocks.register(.host("api.example.com", path: "/files/{rest*}/more")) { _ in .text("no") }
        mocks.register("https://api.example.com/{id}/{id}") { _ in .text("no") }

        XCTAssertEqual(
            mocks.takeFailures().map(\.message),
            [
                "MockNetwork: the segment \"v{version}\" of the path template \"/v{version}/users\" mixes a parameter "
                    + "with other text. A parameter takes a whole segment: write /v{version} as /{version}, and check "
                    + "the value in the handler. Nothing was registered.",
                "MockNetwork: the catch-all {rest*} in the path template \"/files/{rest*}/more\" is not the last "
                    + "segment. Only the last segment may take the rest of the path. Nothing was registered.",
                "MockNetwork: the path template \"/{id}/{id}\" names the parameter {id} twice. Give each a name of "
                    + "its own. Nothing was registered.",
            ])
        XCTAssertEqual(mocks.registered, [])
    }

    // MARK: Partial queries

    func testAQuerySubsetMatchesWhateverElseTheQueryHolds() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/search", query: .ignored).query(["q": "swift"])) { _ in
            .text("swift results")
        }

        let found = try await text(mocks, "https://api.example.com/search?page=2&q=swift")
        let message = await failure(mocks, "https://api.example.com/search?q=rust")
        let missing = await failure(mocks, "https://api.example.com/search?page=2")

        XCTAssertEqual(found, "swift results")
        XCTAssertTrue(message.contains("query item q \"rust\" ≠ \"swift\""), message)
        XCTAssertTrue(missing.contains("query item q missing"), missing)
    }

    func testATemplatesQueryItemsMustBePresent() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/v1/{kind}?sort=asc") { _, parameters in
            .text("sorted \(parameters["kind"] ?? "?")")
        }

        let sorted = try await text(mocks, "https://api.example.com/v1/users?limit=5&sort=asc")
        let message = await failure(mocks, "https://api.example.com/v1/users")

        XCTAssertEqual(sorted, "sorted users")
        XCTAssertTrue(message.contains("query item sort missing"), message)
    }
}
