import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session with a `URLCache` keeps mocked answers as a real server's would be kept: MockNetwork's
/// own rule, the same on every platform (see `HTTPCaching`).
final class CachingTests: XCTestCase {
    private let address = "https://api.example.com/feed"

    /// A session of `mocks` with a memory cache of its own.
    private func cachedSession(_ mocks: MockRegistry, policy: URLRequest.CachePolicy? = nil) -> URLSession {
        let configuration = mocks.configuration
        configuration.urlCache = URLCache(memoryCapacity: 4_000_000, diskCapacity: 0, diskPath: nil)
        if let policy { configuration.requestCachePolicy = policy }
        return URLSession(configuration: configuration)
    }

    /// Registers `address` answering `version` with `headers`, and counts the handler's calls with
    /// the `If-None-Match` / `If-Modified-Since` each saw.
    private func serving(
        _ mocks: MockRegistry, headers: [String: String], notModifiedWhen etag: String? = nil
    ) -> Shared<[String]> {
        let seen = Shared<[String]>([])
        mocks.register(.url(address)) { request in
            let condition = [
                request.value(forHTTPHeaderField: "If-None-Match"),
                request.value(forHTTPHeaderField: "If-Modified-Since"),
            ].compactMap { $0 }.joined(separator: " ")
            let count = seen.update { seen in
                seen.append(condition)
                return seen.count
            }
            if let etag, request.value(forHTTPHeaderField: "If-None-Match") == etag {
                return .status(304, headers: ["X-Checked": "\(count)"])
            }
            return .text("version \(count)", headers: headers)
        }
        return seen
    }

    func testTheReadmeSnippet() async throws {
        let mocks = MockRegistry()
        let feed = #"{"items": []}"#
        // As the README's "Caching" has it:
        let configuration = mocks.configuration
        configuration.urlCache = URLCache(memoryCapacity: 4_000_000, diskCapacity: 0, diskPath: nil)
        let session = URLSession(configuration: configuration)
        mocks.register("https://api.example.com/feed") { request in
            if request.value(forHTTPHeaderField: "If-None-Match") == #""v1""# { return .status(304) }
            return .json(feed, headers: ["Cache-Control": "max-age=60", "ETag": #""v1""#])
        }
        for _ in 0..<2 {
            let reply = try await send(session, "GET", address)
            XCTAssertEqual(reply.text, feed)
        }
        XCTAssertEqual(mocks.requests.count, 1)
    }

    func testAnswersAreNotCachedWithoutACache() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60"])
        let first = try await send(mocks.session, "GET", address)
        let second = try await send(mocks.session, "GET", address)
        XCTAssertEqual([first.text, second.text], ["version 1", "version 2"])
        XCTAssertEqual(seen.current.count, 2)
    }

    func testAFreshAnswerComesFromTheCacheWithoutTheHandler() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60"])
        let session = cachedSession(mocks)
        let first = try await send(session, "GET", address)
        let second = try await send(session, "GET", address)
        XCTAssertEqual([first.text, second.text], ["version 1", "version 1"])
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.response.value(forHTTPHeaderField: "Cache-Control"), "max-age=60")
        XCTAssertEqual(seen.current, [""])
        // The handler's log holds what reached it, as a server's would.
        XCTAssertEqual(mocks.requests.count, 1)
        XCTAssertEqual(mocks.failures, [])
    }

    func testNoStoreAndNoLifetimeOrValidatorAreNotKept() async throws {
        for headers in [["Cache-Control": "no-store, max-age=60"], [:], ["Cache-Control": "max-age=60", "Vary": "*"]] {
            let mocks = MockRegistry()
            let seen = serving(mocks, headers: headers)
            let session = cachedSession(mocks)
            _ = try await send(session, "GET", address)
            let second = try await send(session, "GET", address)
            XCTAssertEqual(second.text, "version 2", "\(headers)")
            XCTAssertEqual(seen.current.count, 2, "\(headers)")
        }
    }

    func testAStaleAnswerIsRevalidatedWithItsETagAndA304GivesTheStoredBody() async throws {
        let mocks = MockRegistry()
        // Stored two minutes after the server's Date: older than its minute of life already.
        let date = HTTPDateText.string(Date().addingTimeInterval(-120))
        let seen = serving(
            mocks, headers: ["Cache-Control": "max-age=60", "Date": date, "ETag": #""v1""#], notModifiedWhen: #""v1""#)
        let session = cachedSession(mocks)
        let first = try await send(session, "GET", address)
        let second = try await send(session, "GET", address)
        XCTAssertEqual(first.text, "version 1")
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.text, "version 1")
        XCTAssertEqual(second.response.value(forHTTPHeaderField: "X-Checked"), "2", "the 304's fields are kept")
        XCTAssertEqual(second.response.value(forHTTPHeaderField: "ETag"), #""v1""#)
        XCTAssertEqual(seen.current, ["", #""v1""#])
        XCTAssertEqual(mocks.requests.map { $0.header("If-None-Match") }, [nil, #""v1""#])
        // The 304 had no Date: it counts as of now, so the answer is fresh again for its minute.
        let third = try await send(session, "GET", address)
        XCTAssertEqual(third.text, "version 1")
        XCTAssertEqual(seen.current.count, 2)
    }

    func testAnAnswerThatTimedOutIsNotKept() async throws {
        let mocks = MockRegistry()
        let calls = Shared(0)
        mocks.register(.url(address)) { _ in
            let call = calls.update { count in
                count += 1
                return count
            }
            let answer = MockResponse.text("version \(call)", headers: ["Cache-Control": "max-age=60"])
            return call == 1 ? answer.delayed(by: 30) : answer
        }
        let session = cachedSession(mocks)
        var request = URLRequest(url: try XCTUnwrap(URL(string: address)))
        request.timeoutInterval = 0.2
        do {
            _ = try await session.data(for: request)
            XCTFail("an answer delayed past the timeout arrived")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .timedOut)
        }
        let retry = try await send(session, "GET", address)
        XCTAssertEqual(retry.text, "version 2")
        XCTAssertEqual(calls.current, 2)
    }

    func testAPostAnsweredWithARedirectRemovesWhatWasStored() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60"])
        mocks.register(.url(address).method("POST")) { _ in .redirect(to: "/feed/done", status: 303) }
        mocks.register("https://api.example.com/feed/done", answer: .text("done"))
        let session = cachedSession(mocks)
        _ = try await send(session, "GET", address)
        let posted = try await send(session, "POST", address, body: Data("new".utf8))
        XCTAssertEqual(posted.text, "done")
        let after = try await send(session, "GET", address)
        XCTAssertEqual(after.text, "version 2")
        XCTAssertEqual(seen.current.count, 2)
    }

    /// Many requests at once on a cached session: run under ThreadSanitizer in CI, where a race
    /// between storing and reading what is stored fails the run.
    func testFiveHundredConcurrentRequestsOnACachedSession() async throws {
        let mocks = MockRegistry()
        mocks.register(.url("https://api.example.com/item", query: .ignored)) { request in
            .text(request.url?.query ?? "", headers: ["Cache-Control": "max-age=60", "ETag": #""e""#])
        }
        let session = cachedSession(mocks)
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<500 {
                group.addTask { try await send(session, "GET", "https://api.example.com/item?\(index % 50)").text }
            }
            var texts: [String] = []
            for try await text in group { texts.append(text) }
            return texts
        }
        XCTAssertEqual(Set(texts), Set((0..<50).map { "\($0)" }))
        XCTAssertEqual(mocks.failures, [])
    }

    func testAMaxAgeBeyondTwoToTheThirtyFirstCountsAsThat() async throws {
        // RFC 9111, 1.2.2: a delta-seconds too large to hold is taken as 2^31 seconds, not as 0.
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=99999999999999999999999"])
        let session = cachedSession(mocks)
        for _ in 0..<2 { _ = try await send(session, "GET", address) }
        XCTAssertEqual(seen.current.count, 1)
    }

    func testEachHopOfARedirectIsLookedUpAndStoredAsARequestOfItsOwn() async throws {
        // GET A → 301 → B, where B may be kept a minute: the second time, B comes from the cache
        // (A is asked again, its redirect having no lifetime). Apple's loading does this with a new
        // protocol per hop; MockNetwork does the same on Linux, where one protocol runs the chain.
        let mocks = MockRegistry()
        let calls = Shared<[String]>([])
        mocks.register("https://api.example.com/a") { _ in
            calls.update { $0.append("A") }
            return .redirect(to: "https://api.example.com/b", status: 301)
        }
        mocks.register("https://api.example.com/b") { _ in
            calls.update { $0.append("B") }
            return .text("bee", headers: ["Cache-Control": "max-age=60"])
        }
        let session = cachedSession(mocks)
        for _ in 0..<2 {
            let reply = try await send(session, "GET", "https://api.example.com/a")
            XCTAssertEqual(reply.text, "bee")
            XCTAssertEqual(reply.response.url?.absoluteString, "https://api.example.com/b")
        }
        XCTAssertEqual(calls.current, ["A", "B", "A"])
        // B on its own is answered from the cache too.
        let direct = try await send(session, "GET", "https://api.example.com/b")
        XCTAssertEqual(direct.text, "bee")
        XCTAssertEqual(calls.current, ["A", "B", "A"])
    }

    func testNoCacheAlwaysAsksAndLastModifiedIsSentBack() async throws {
        let mocks = MockRegistry()
        let modified = "Tue, 24 Nov 2026 08:00:00 GMT"
        let seen = serving(mocks, headers: ["Cache-Control": "no-cache", "Last-Modified": modified])
        let session = cachedSession(mocks)
        _ = try await send(session, "GET", address)
        let second = try await send(session, "GET", address)
        // No 304 from this handler: its new answer replaces the stored one.
        XCTAssertEqual(second.text, "version 2")
        let third = try await send(session, "GET", address)
        XCTAssertEqual(third.text, "version 3")
        XCTAssertEqual(seen.current, ["", modified, modified])
    }

    func testExpiresDecidesWithoutMaxAge() async throws {
        let now = Date()
        for (expires, calls) in [(now.addingTimeInterval(3_600), 1), (now.addingTimeInterval(-3_600), 2)] {
            let mocks = MockRegistry()
            let seen = serving(
                mocks,
                headers: ["Date": HTTPDateText.string(now), "Expires": HTTPDateText.string(expires)])
            let session = cachedSession(mocks)
            _ = try await send(session, "GET", address)
            _ = try await send(session, "GET", address)
            XCTAssertEqual(seen.current.count, calls, "Expires \(expires)")
        }
    }

    func testTheRequestsCachePolicyChooses() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=0"])
        let session = cachedSession(mocks)
        _ = try await send(session, "GET", address)
        // Stale, but the policy takes what is stored.
        var request = URLRequest(url: try XCTUnwrap(URL(string: address)))
        request.cachePolicy = .returnCacheDataElseLoad
        let (data, _) = try await session.data(for: request)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "version 1")
        // The policy goes past what is stored.
        request.cachePolicy = .reloadIgnoringLocalCacheData
        let (reloaded, _) = try await session.data(for: request)
        XCTAssertEqual(String(decoding: reloaded, as: UTF8.self), "version 2")
        XCTAssertEqual(seen.current.count, 2)

        // Nothing stored and no loading allowed: the request fails, naming why.
        let other = MockRegistry()
        _ = serving(other, headers: ["Cache-Control": "max-age=60"])
        request.cachePolicy = .returnCacheDataDontLoad
        do {
            _ = try await cachedSession(other).data(for: request)
            XCTFail("a request with nothing stored and .returnCacheDataDontLoad was answered")
        } catch let error as URLError {
            XCTAssertEqual(error.code, .resourceUnavailable)
            XCTAssertEqual(
                error.localizedDescription,
                "MockNetwork: nothing is stored in the session's URL cache for GET https://api.example.com/feed, "
                    + "and the request's cache policy is .returnCacheDataDontLoad.")
        }
        XCTAssertEqual(other.requests.count, 0)
    }

    func testTheSessionsPolicyAppliesToRequestsThatLeaveItToTheProtocol() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60"])
        let session = cachedSession(mocks, policy: .reloadIgnoringLocalCacheData)
        _ = try await send(session, "GET", address)
        let second = try await send(session, "GET", address)
        XCTAssertEqual(second.text, "version 2")
        XCTAssertEqual(seen.current.count, 2)
    }

    func testVaryKeepsAnswersApartByTheFieldsItNames() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        let session = cachedSession(mocks)
        let english = try await send(session, "GET", address, headers: ["Accept-Language": "en"])
        let again = try await send(session, "GET", address, headers: ["Accept-Language": "en"])
        let french = try await send(session, "GET", address, headers: ["Accept-Language": "fr"])
        XCTAssertEqual([english.text, again.text, french.text], ["version 1", "version 1", "version 2"])
        XCTAssertEqual(seen.current.count, 2)
    }

    func testAnotherQueryIsAnotherAnswer() async throws {
        let mocks = MockRegistry()
        let calls = Shared(0)
        mocks.register(.host("api.example.com", path: "/feed")) { request in
            calls.update { $0 += 1 }
            return .text(request.url?.query ?? "", headers: ["Cache-Control": "max-age=60"])
        }
        let session = cachedSession(mocks)
        var pages: [String] = []
        for page in [1, 2, 2, 1] { pages.append(try await send(session, "GET", address + "?page=\(page)").text) }
        XCTAssertEqual(pages, ["page=1", "page=2", "page=2", "page=1"])
        // Each query is an answer of its own, kept beside the other (on Linux too, whose cache files
        // answers by path only).
        XCTAssertEqual(calls.current, 2)
    }

    func testASuccessfulPostRemovesWhatWasStoredForItsURL() async throws {
        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60"])
        mocks.register(.url(address).method("POST")) { _ in .status(201) }
        let session = cachedSession(mocks)
        _ = try await send(session, "GET", address)
        _ = try await send(session, "GET", address)
        _ = try await send(session, "POST", address, body: Data("new".utf8))
        let after = try await send(session, "GET", address)
        XCTAssertEqual(after.text, "version 2")
        XCTAssertEqual(seen.current.count, 2)
    }

    func testARequestWithItsOwnValidatorGetsThe304ItAskedFor() async throws {
        let mocks = MockRegistry()
        _ = serving(mocks, headers: ["Cache-Control": "max-age=60", "ETag": #""v1""#], notModifiedWhen: #""v1""#)
        let session = cachedSession(mocks)
        _ = try await send(session, "GET", address)
        let own = try await send(session, "GET", address, headers: ["If-None-Match": #""v1""#])
        XCTAssertEqual(own.status, 304)
        XCTAssertEqual(own.text, "")
    }

    func testTheSameClientCodeAgainstARealServer() async throws {
        let date = HTTPDateText.string(Date())
        let server = try LoopbackServer(routes: [
            "GET /feed": .init(headers: [("Cache-Control", "max-age=60"), ("Date", date)], text: "from the server")
        ])
        defer { server.stop() }
        let realConfiguration = URLSessionConfiguration.ephemeral
        realConfiguration.urlCache = URLCache(memoryCapacity: 4_000_000, diskCapacity: 0, diskPath: nil)
        let real = URLSession(configuration: realConfiguration)
        let served = try XCTUnwrap(server.url("/feed"))
        let first = try await send(real, "GET", served.absoluteString)
        XCTAssertEqual(first.text, "from the server")
        #if !canImport(FoundationNetworking)
            // Apple's URLSession may store the answer just after handing it over: wait for that event
            // (bounded), so the second request finds it.
            let cache = try XCTUnwrap(realConfiguration.urlCache)
            for _ in 0..<500 where cache.cachedResponse(for: URLRequest(url: served)) == nil {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
        #endif
        let second = try await send(real, "GET", served.absoluteString)
        XCTAssertEqual(second.text, "from the server")

        let mocks = MockRegistry()
        let seen = serving(mocks, headers: ["Cache-Control": "max-age=60", "Date": date])
        let mocked = cachedSession(mocks)
        for _ in 0..<2 {
            let reply = try await send(mocked, "GET", address)
            XCTAssertEqual(reply.text, "version 1")
        }
        XCTAssertEqual(seen.current.count, 1)
        #if canImport(FoundationNetworking)
            // Foundation on Linux keeps nothing a server answers (its HTTP protocol stores no response),
            // so there the real server is asked twice; MockNetwork keeps to what Apple platforms do.
            XCTAssertEqual(server.received.count, 2)
        #else
            XCTAssertEqual(server.received.count, 1)
        #endif
    }
}

/// HTTP dates for the tests' header fields.
enum HTTPDateText {
    static func string(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
