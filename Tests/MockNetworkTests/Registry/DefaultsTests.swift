import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkArchives
#endif

/// `registerDefaults`: answers a test starts with, which its own handlers override.
final class DefaultsTests: XCTestCase {
    func testADefaultAnswersWhatNoHandlerOfTheTestsMatches() async throws {
        let mocks = MockRegistry()
        mocks.registerDefaults { mocks in
            mocks.register("https://api.example.com/flags") { _ in .text("default flags") }
            mocks.register(.host("api.example.com")) { _ in .text("default host") }
        }
        mocks.register("https://api.example.com/user") { _ in .text("own user") }

        let flags = try await send(mocks.session, "GET", "https://api.example.com/flags")
        let user = try await send(mocks.session, "GET", "https://api.example.com/user")
        let other = try await send(mocks.session, "GET", "https://api.example.com/other")
        XCTAssertEqual([flags.text, user.text, other.text], ["default flags", "own user", "default host"])
        XCTAssertEqual(mocks.failures, [])
    }

    /// However the two match: the test's host pattern wins over a default for the exact URL.
    func testTheTestsOwnHandlerWinsOverAMoreSpecificDefault() async throws {
        let mocks = MockRegistry()
        let defaultRoute = Shared<MockRoute?>(nil)
        mocks.registerDefaults { mocks in
            defaultRoute.update { $0 = mocks.register("https://api.example.com/flags") { _ in .text("default") } }
        }
        let own = mocks.register(.host("api.example.com")) { _ in .text("own") }

        let reply = try await send(mocks.session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(reply.text, "own")
        XCTAssertEqual(own.callCount, 1)
        XCTAssertEqual(defaultRoute.current?.callCount, 0)
    }

    /// A test's handler whose rules say no (here its `.when`) leaves the request to the defaults.
    func testARequestTheTestsHandlerTurnsDownFallsToTheDefault() async throws {
        let mocks = MockRegistry()
        mocks.registerDefaults { mocks in
            mocks.register(.url("https://api.example.com/flags")) { _ in .text("default") }
        }
        let useOwn = Shared(true)
        mocks.register(.url("https://api.example.com/flags").when { _ in useOwn.current }) { _ in .text("own") }

        let first = try await send(mocks.session, "GET", "https://api.example.com/flags")
        useOwn.update { $0 = false }
        let second = try await send(mocks.session, "GET", "https://api.example.com/flags")
        XCTAssertEqual([first.text, second.text], ["own", "default"])
    }

    /// Registered before the defaults (in `setUpWithError`, which XCTest runs before `setUp`), the
    /// test's handler for the very same match is not replaced by the default.
    func testOrderDoesNotMatterADefaultRegisteredLaterStillLoses() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/flags") { _ in .text("own") }
        mocks.registerDefaults { mocks in
            mocks.register("https://api.example.com/flags") { _ in .text("default") }
        }
        let reply = try await send(mocks.session, "GET", "https://api.example.com/flags")
        XCTAssertEqual(reply.text, "own")
    }

    /// The test's handlers, then an archive's entries, then the defaults.
    func testAnArchiveOutranksTheDefaultsAndTheTestOutranksBoth() async throws {
        let mocks = MockRegistry()
        mocks.registerDefaults { mocks in
            mocks.register(.host("api.example.com")) { _ in .text("default") }
        }
        func entry(_ path: String, _ text: String) -> HTTPArchive.Entry {
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: "https://api.example.com" + path),
                response: HTTPArchive.Response(status: 200, body: HTTPArchive.Body(Data(text.utf8))))
        }
        try mocks.replay(HTTPArchive(entries: [entry("/a", "archive a"), entry("/b", "archive b")]))
        mocks.register("https://api.example.com/b") { _ in .text("own b") }

        var texts: [String] = []
        for path in ["/a", "/b", "/c"] {
            texts.append(try await send(mocks.session, "GET", "https://api.example.com" + path).text)
        }
        XCTAssertEqual(texts, ["archive a", "own b", "default"])
    }

    func testADefaultNeverCalledDoesNotFailRequiresEveryHandlerCalled() throws {
        let mocks = MockRegistry()
        mocks.requiresEveryHandlerCalled = true
        mocks.registerDefaults { mocks in
            mocks.register("https://api.example.com/flags") { _ in .text("default") }
        }
        mocks.register("https://api.example.com/own") { _ in .text("own") }

        XCTAssertEqual(
            mocks.endOfTestFailures().map(\.message),
            [
                "MockNetwork: the handler for https://api.example.com/own was never called, and this test requires "
                    + "every handler to be (requiresEveryHandlerCalled). Check that the code under test makes this "
                    + "request, or remove the handler."
            ])
    }

    /// Only what `registerDefaults`'s closure registers on its own task or thread is a default: a
    /// registration another thread makes meanwhile is the test's.
    func testARegistrationFromAnotherThreadMeanwhileIsTheTests() async throws {
        let mocks = MockRegistry()
        mocks.registerDefaults { mocks in
            let done = DispatchSemaphore(value: 0)
            Thread {
                mocks.register("https://api.example.com/x") { _ in .text("from the other thread") }
                done.signal()
            }.start()
            done.wait()
            mocks.register("https://api.example.com/x") { _ in .text("default") }
        }
        let reply = try await send(mocks.session, "GET", "https://api.example.com/x")
        XCTAssertEqual(reply.text, "from the other thread")
    }

    func testTheFirstRegistrationNamedForFailuresIsTheTestsNotADefault() {
        let mocks = MockRegistry()
        mocks.registerDefaults { mocks in
            mocks.register("https://api.example.com/flags") { _ in .text("default") }
        }
        XCTAssertNil(mocks.firstRegistration)
        let line = #line + 1
        mocks.register("https://api.example.com/own") { _ in .text("own") }
        XCTAssertEqual(mocks.firstRegistration?.line, line)
    }
}
