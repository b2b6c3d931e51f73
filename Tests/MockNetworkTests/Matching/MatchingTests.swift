import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

final class MatchingTests: XCTestCase {
    private let items = "https://api.example.com/items"

    /// The code of the `URLError` a request that must fail fails with.
    private func failureCode(
        _ session: URLSession, _ method: String = "GET", _ address: String,
        headers: [String: String] = [:], body: Data? = nil, file: StaticString = #filePath, line: UInt = #line
    ) async -> URLError.Code? {
        let error = await thrownError(file: file, line: line) {
            try await send(session, method, address, headers: headers, body: body)
        }
        return (error as? URLError)?.code
    }

    // MARK: Method

    func testMethodOnlyHandlerAnswersThatMethodAndNoOther() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(items), method: "POST") { _ in .status(201) }
        mocks.register(.url(items).method("delete")) { _ in .status(204) }

        let posted = try await send(mocks.session, "POST", items)
        XCTAssertEqual(posted.status, 201)
        let deleted = try await send(mocks.session, "DELETE", items)
        XCTAssertEqual(deleted.status, 204, "methods are compared case-insensitively")
        let getCode = await failureCode(mocks.session, "GET", items)
        XCTAssertEqual(getCode, .resourceUnavailable)
        XCTAssertEqual(mocks.registered, ["POST \(items)", "DELETE \(items)"])
        XCTAssertEqual(mocks.failures.count, 1)
    }

    func testSameURLWithDifferentMethodsKeepsBothHandlers() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(items), method: "GET") { _ in .text("list") }
        mocks.register(.url(items), method: "POST") { _ in .text("created", status: 201) }

        let list = try await send(mocks.session, "GET", items)
        let created = try await send(mocks.session, "POST", items)
        XCTAssertEqual([list.status, created.status], [200, 201])
        XCTAssertEqual([list.text, created.text], ["list", "created"])
    }

    // MARK: Query

    func testAnyOrderQueryMatchesTheSameItemsInAnyOrderOnly() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/search?a=1&b=2", query: .anyOrder)) { _ in .text("found") }

        let swapped = try await send(mocks.session, "GET", "https://api.example.com/search?b=2&a=1")
        XCTAssertEqual(swapped.text, "found")
        let same = try await send(mocks.session, "GET", "https://api.example.com/search?a=1&b=2")
        XCTAssertEqual(same.text, "found")
        let fewer = await failureCode(mocks.session, "GET", "https://api.example.com/search?a=1")
        let more = await failureCode(mocks.session, "GET", "https://api.example.com/search?a=1&b=2&c=3")
        let none = await failureCode(mocks.session, "GET", "https://api.example.com/search")
        XCTAssertEqual([fewer, more, none], [.resourceUnavailable, .resourceUnavailable, .resourceUnavailable])
        XCTAssertEqual(mocks.failures.count, 3)
    }

    func testIgnoredQueryMatchesAnyQueryOrNone() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/feed", query: .ignored)) { request in
            .text(request.url?.query ?? "(none)")
        }

        let none = try await send(mocks.session, "GET", "https://api.example.com/feed")
        let page = try await send(mocks.session, "GET", "https://api.example.com/feed?page=2&size=10")
        XCTAssertEqual([none.text, page.text], ["(none)", "page=2&size=10"])
        let otherPath = await failureCode(mocks.session, "GET", "https://api.example.com/feeds?page=2")
        XCTAssertEqual(otherPath, .resourceUnavailable)
    }

    // MARK: Host and path patterns

    func testHostAndPathPatternsMatchWithWildcards() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("*.example.com", path: "/v1/users/*")) { request in .text(request.url?.path ?? "") }

        for (address, path) in [
            ("https://api.example.com/v1/users/42", "/v1/users/42"),
            ("http://eu.api.example.com/v1/users/7?fields=name", "/v1/users/7"),
            ("https://API.Example.COM/v1/users/9", "/v1/users/9"),
            ("https://api.example.com/v1/users/42/posts", "/v1/users/42/posts"),
        ] {
            let reply = try await send(mocks.session, "GET", address)
            XCTAssertEqual(reply.text, path, address)
        }
        for address in [
            "https://example.com/v1/users/42",  // "*." needs a subdomain
            "https://api.example.org/v1/users/42",
            "https://api.example.com/v1/orders/42",
            "https://api.example.com/v2/users/42",
        ] {
            let code = await failureCode(mocks.session, "GET", address)
            XCTAssertEqual(code, .resourceUnavailable, address)
        }
        XCTAssertEqual(mocks.registered, ["host *.example.com path /v1/users/*"])
        XCTAssertEqual(mocks.failures.count, 4)
    }

    func testHostPatternWithoutPathMatchesEveryPath() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("cdn.example.com")) { _ in .data(Data([0xFF, 0xD8])) }

        let image = try await send(mocks.session, "GET", "https://cdn.example.com/images/a/b/c.jpg?w=100")
        XCTAssertEqual(image.body, Data([0xFF, 0xD8]))
        let root = try await send(mocks.session, "GET", "https://cdn.example.com/")
        XCTAssertEqual(root.status, 200)
        let other = await failureCode(mocks.session, "GET", "https://img.example.com/images/a.jpg")
        XCTAssertEqual(other, .resourceUnavailable)
    }

    // MARK: Headers, body, predicates

    func testHeaderNamesAreCaseInsensitiveAndValuesExact() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/me").header("authorization", "Bearer t0k3n")) { _ in
            .json(#"{"id":1}"#)
        }

        let reply = try await send(
            mocks.session, "GET", "https://api.example.com/me", headers: ["Authorization": "Bearer t0k3n"])
        XCTAssertEqual(reply.text, #"{"id":1}"#)
        let upper = try await send(
            mocks.session, "GET", "https://api.example.com/me", headers: ["AUTHORIZATION": "Bearer t0k3n"])
        XCTAssertEqual(upper.status, 200)
        let wrongCase = await failureCode(
            mocks.session, "GET", "https://api.example.com/me", headers: ["Authorization": "bearer t0k3n"])
        XCTAssertEqual(wrongCase, .resourceUnavailable, "header values are compared exactly")
        let missing = await failureCode(mocks.session, "GET", "https://api.example.com/me")
        XCTAssertEqual(missing, .resourceUnavailable)
        XCTAssertEqual(mocks.failures.count, 2)
    }

    func testBodyMatchesExactBytesOnly() async throws {
        let mocks = MockRegistry()
        let bytes = Data([0x00, 0x01, 0xFE, 0xFF])
        mocks.register(.url("https://api.example.com/blob").method("PUT").body(bytes)) { request in
            .status(204)
        }

        let reply = try await send(mocks.session, "PUT", "https://api.example.com/blob", body: bytes)
        XCTAssertEqual(reply.status, 204)
        let longer = await failureCode(mocks.session, "PUT", "https://api.example.com/blob", body: bytes + Data([0]))
        let empty = await failureCode(mocks.session, "PUT", "https://api.example.com/blob")
        XCTAssertEqual([longer, empty], [.resourceUnavailable, .resourceUnavailable])
        XCTAssertEqual(mocks.requests.map(\.body), [bytes, bytes + Data([0]), Data()])
    }

    func testJSONBodyMatchesWhateverTheKeyOrderAndWhitespace() async throws {
        let mocks = MockRegistry()
        mocks.register(
            .url("https://api.example.com/login").method("POST")
                .jsonBody(
                    #"{"user": "ada", "password": "secret", "scopes": ["read", "write"], "device": {"os": "linux", "v": 2}}"#
                )
        ) { _ in .json(#"{"token":"t"}"#) }

        let reordered = Data(
            #"{"device":{"v":2,"os":"linux"},"scopes":["read","write"],"password":"secret","user":"ada"}"#.utf8)
        let reply = try await send(mocks.session, "POST", "https://api.example.com/login", body: reordered)
        XCTAssertEqual(reply.text, #"{"token":"t"}"#)
        let spaced = Data(
            "{\n  \"user\" : \"ada\",\n  \"password\" : \"secret\",\n  \"scopes\" : [ \"read\", \"write\" ],\n  \"device\" : { \"os\" : \"linux\", \"v\" : 2 }\n}"
                .utf8)
        let spacedReply = try await send(mocks.session, "POST", "https://api.example.com/login", body: spaced)
        XCTAssertEqual(spacedReply.status, 200)

        let otherValue = Data(
            #"{"user":"ada","password":"wrong","scopes":["read","write"],"device":{"os":"linux","v":2}}"#.utf8)
        let arrayOrder = Data(
            #"{"user":"ada","password":"secret","scopes":["write","read"],"device":{"os":"linux","v":2}}"#.utf8)
        let notJSON = Data("user=ada".utf8)
        for body in [otherValue, arrayOrder, notJSON] {
            let code = await failureCode(mocks.session, "POST", "https://api.example.com/login", body: body)
            XCTAssertEqual(code, .resourceUnavailable, String(decoding: body, as: UTF8.self))
        }
        XCTAssertEqual(mocks.failures.count, 3)
    }

    func testWhenPredicateDecides() async throws {
        let mocks = MockRegistry()
        mocks.register(
            .url("https://api.example.com/search", query: .ignored).when("page is 2") { request in
                request.url?.query?.contains("page=2") ?? false
            }
        ) { _ in .text("second page") }
        mocks.register(.url("https://api.example.com/search", query: .ignored)) { _ in .text("any page") }

        let second = try await send(mocks.session, "GET", "https://api.example.com/search?page=2")
        let first = try await send(mocks.session, "GET", "https://api.example.com/search?page=1")
        XCTAssertEqual([second.text, first.text], ["second page", "any page"])
    }

    func testEveryRuleOfACompositionMustHold() async throws {
        let mocks = MockRegistry()
        let target = "https://api.example.com/orders"
        mocks.register(
            .url(target).method("POST")
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "k1")
                .jsonBody(#"{"sku": "A1", "qty": 2}"#)
                .when("has no cookie") { $0.value(forHTTPHeaderField: "Cookie") == nil }
        ) { _ in .json(#"{"order":7}"#, status: 201) }

        let headers = ["Content-Type": "application/json", "Idempotency-Key": "k1"]
        let body = Data(#"{"qty":2,"sku":"A1"}"#.utf8)
        let created = try await send(mocks.session, "POST", target, headers: headers, body: body)
        XCTAssertEqual(created.status, 201)

        var attempts: [(String, URLError.Code?)] = []
        attempts.append(("method", await failureCode(mocks.session, "PUT", target, headers: headers, body: body)))
        attempts.append(
            (
                "header",
                await failureCode(
                    mocks.session, "POST", target, headers: ["Content-Type": "application/json"], body: body)
            ))
        attempts.append(
            (
                "body",
                await failureCode(
                    mocks.session, "POST", target, headers: headers, body: Data(#"{"qty":3,"sku":"A1"}"#.utf8))
            ))
        attempts.append(
            (
                "predicate",
                await failureCode(
                    mocks.session, "POST", target, headers: headers.merging(["Cookie": "a=b"]) { $1 }, body: body)
            ))
        for (rule, code) in attempts { XCTAssertEqual(code, .resourceUnavailable, "breaking the \(rule) rule") }
        XCTAssertEqual(mocks.failures.count, 4)
        XCTAssertEqual(mocks.callCount(for: target), 1)
    }

    // MARK: Precedence

    func testExactURLWinsOverAnyOrderQueryWhicheverIsRegisteredLater() async throws {
        let mocks = MockRegistry()
        let address = "https://api.example.com/search?a=1&b=2"
        mocks.register(.url(address)) { _ in .text("exact") }
        mocks.register(.url(address, query: .anyOrder)) { _ in .text("any order") }

        let exact = try await send(mocks.session, "GET", address)
        let swapped = try await send(mocks.session, "GET", "https://api.example.com/search?b=2&a=1")
        XCTAssertEqual([exact.text, swapped.text], ["exact", "any order"])
    }

    func testAnyOrderQueryWinsOverIgnoredQuery() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/search?a=1&b=2", query: .anyOrder)) { _ in .text("any order") }
        mocks.register(.url("https://api.example.com/search", query: .ignored)) { _ in .text("ignored") }

        let matching = try await send(mocks.session, "GET", "https://api.example.com/search?b=2&a=1")
        let other = try await send(mocks.session, "GET", "https://api.example.com/search?c=3")
        XCTAssertEqual([matching.text, other.text], ["any order", "ignored"])
    }

    func testIgnoredQueryWinsOverHostPattern() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/search", query: .ignored)) { _ in .text("ignored") }
        mocks.register(.host("*.example.com", path: "/search")) { _ in .text("pattern") }

        let search = try await send(mocks.session, "GET", "https://api.example.com/search?q=x")
        let otherHost = try await send(mocks.session, "GET", "https://www.example.com/search?q=x")
        XCTAssertEqual([search.text, otherHost.text], ["ignored", "pattern"])
    }

    func testPatternWithPathWinsOverHostOnlyPattern() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("api.example.com", path: "/v1/*")) { _ in .text("path") }
        mocks.register(.host("api.example.com")) { _ in .text("host") }

        let v1 = try await send(mocks.session, "GET", "https://api.example.com/v1/users")
        let v2 = try await send(mocks.session, "GET", "https://api.example.com/v2/users")
        XCTAssertEqual([v1.text, v2.text], ["path", "host"])
    }

    func testMoreRulesWinAmongTheSameKindOfURLWhicheverIsRegisteredLater() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(items).method("GET").header("Accept", "text/csv")) { _ in .text("csv") }
        mocks.register(.url(items).method("GET")) { _ in .text("get") }
        mocks.register(.url(items)) { _ in .text("any method") }

        let csv = try await send(mocks.session, "GET", items, headers: ["Accept": "text/csv"])
        let get = try await send(mocks.session, "GET", items)
        let patch = try await send(mocks.session, "PATCH", items)
        XCTAssertEqual([csv.text, get.text, patch.text], ["csv", "get", "any method"])
    }

    func testExactURLWithoutRulesStillWinsOverALooserURLWithMoreRules() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(items)) { _ in .text("exact") }
        mocks.register(.url(items, query: .ignored).method("GET").header("Accept", "application/json")) { _ in
            .text("ignored with rules")
        }

        let reply = try await send(mocks.session, "GET", items, headers: ["Accept": "application/json"])
        XCTAssertEqual(reply.text, "exact")
    }

    func testAmongEquallySpecificHandlersTheLatestRegisteredWins() async throws {
        let mocks = MockRegistry()
        mocks.register(.url(items).header("Accept", "application/json")) { _ in .text("first: header") }
        mocks.register(.url(items).method("GET")) { _ in .text("second: method") }
        let first = try await send(mocks.session, "GET", items, headers: ["Accept": "application/json"])
        XCTAssertEqual(first.text, "second: method")

        mocks.register(.url(items).when("always") { _ in true }) { _ in .text("third: predicate") }
        let second = try await send(mocks.session, "GET", items, headers: ["Accept": "application/json"])
        XCTAssertEqual(second.text, "third: predicate")
        XCTAssertEqual(mocks.registered.count, 3)
    }

    // MARK: Unmatched requests name the nearest handler and the rule that failed

    private func onlyFailure(_ mocks: MockRegistry, file: StaticString = #filePath, line: UInt = #line) -> String {
        let failures = mocks.failures
        XCTAssertEqual(failures.count, 1, file: file, line: line)
        return failures.first?.message ?? ""
    }

    private func fix(_ address: String) -> String {
        "Fix: register a handler for this URL, e.g. register(\"\(address)\") { _ in .status(200) }, "
            + "or correct the URL the client builds."
    }

    /// The fix when a handler's URL fits and its rules do not: it names those rules and where the
    /// handler was registered.
    private func ruleFix(line: Int, _ rules: String) -> String {
        "Fix: the URL fits the handler registered at MockNetworkTests/MatchingTests.swift:\(line), but not its rules "
            + "(\(rules)). Make the client send what that match expects, or loosen the match there."
    }

    func testUnmatchedMethodNamesTheHandlerAndTheMethod() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register(.url(items), method: "POST") { _ in .status(201) }
        _ = await failureCode(mocks.session, "GET", items)

        XCTAssertEqual(
            onlyFailure(mocks),
            """
            MockNetwork: no handler for GET \(items).
            Nearest: POST \(items) (method GET ≠ POST)
            Registered (1):
              POST \(items)
            \(ruleFix(line: line, "method GET ≠ POST"))
            """)
    }

    func testUnmatchedHeaderSaysItIsMissingOrDifferent() async throws {
        let mocks = MockRegistry()
        let me = "https://api.example.com/me"
        let line = #line + 1
        mocks.register(.url(me).header("Authorization", "Bearer t")) { _ in .status(200) }
        _ = await failureCode(mocks.session, "GET", me)
        XCTAssertEqual(
            onlyFailure(mocks),
            """
            MockNetwork: no handler for GET \(me).
            Nearest: \(me) with Authorization: Bearer t (header Authorization missing)
            Registered (1):
              \(me) with Authorization: Bearer t
            \(ruleFix(line: line, "header Authorization missing"))
            """)

        _ = mocks.failures  // reading does not clear; reset() does
        mocks.reset()
        mocks.register(.url(me).header("Authorization", "Bearer t")) { _ in .status(200) }
        _ = await failureCode(mocks.session, "GET", me, headers: ["Authorization": "Bearer x"])
        XCTAssertTrue(
            onlyFailure(mocks).contains(
                "Nearest: \(me) with Authorization: Bearer t (header Authorization \"Bearer x\" ≠ \"Bearer t\")"),
            onlyFailure(mocks))
    }

    func testUnmatchedNamesEveryFailingRuleOfTheNearestHandler() async throws {
        let mocks = MockRegistry()
        let login = "https://api.example.com/login"
        let line = #line + 1
        mocks.register(
            .url(login).method("POST").header("Content-Type", "application/json").jsonBody(#"{"user": "ada"}"#)
        ) { _ in
            .status(200)
        }
        mocks.register("https://api.example.com/logout") { _ in .status(200) }
        _ = await failureCode(mocks.session, "PUT", login, body: Data(#"{"user":"bob"}"#.utf8))

        XCTAssertEqual(
            onlyFailure(mocks),
            """
            MockNetwork: no handler for PUT \(login).
            Nearest: POST \(login) with Content-Type: application/json with JSON body {"user": "ada"} \
            (method PUT ≠ POST; header Content-Type missing; JSON body {"user":"bob"} ≠ {"user": "ada"})
            Registered (2):
              POST \(login) with Content-Type: application/json with JSON body {"user": "ada"}
              https://api.example.com/logout
            \(ruleFix(line: line, #"method PUT ≠ POST; header Content-Type missing; JSON body {"user":"bob"} ≠ {"user": "ada"}"#))
            """)
    }

    func testUnmatchedPicksTheHandlerWithFewestFailingRules() async throws {
        let mocks = MockRegistry()
        let target = "https://api.example.com/a"
        mocks.register(.url(target).method("POST").header("X-Version", "2")) { _ in .status(200) }
        mocks.register(.url(target).method("DELETE")) { _ in .status(204) }
        _ = await failureCode(mocks.session, "PUT", target)

        XCTAssertTrue(
            onlyFailure(mocks).contains("Nearest: DELETE \(target) (method PUT ≠ DELETE)\n"), onlyFailure(mocks))
    }

    func testUnmatchedPatternAndPredicateSayWhatFailed() async throws {
        let mocks = MockRegistry()
        mocks.register(.host("*.example.com", path: "/v1/users/*")) { _ in .status(200) }
        _ = await failureCode(mocks.session, "GET", "https://api.example.org/v1/users/1")
        XCTAssertTrue(
            onlyFailure(mocks).contains(
                "Nearest: host *.example.com path /v1/users/* (host \"api.example.org\" does not match \"*.example.com\")"
            ),
            onlyFailure(mocks))

        mocks.reset()
        mocks.register(.url(items).when("is admin") { $0.value(forHTTPHeaderField: "X-Role") == "admin" }) { _ in
            .status(200)
        }
        _ = await failureCode(mocks.session, "GET", items)
        XCTAssertTrue(
            onlyFailure(mocks).contains("Nearest: \(items) when is admin (is admin is false)"), onlyFailure(mocks))
    }
}
