import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The exact texts of the failures reported under Swift Testing.
@Suite struct FailureReportingTests {
    func get(_ text: String, from mocks: MockRegistry) async throws {
        _ = try? await mocks.session.data(from: try #require(URL(string: text)))
    }

    @Test func unmatchedRequestIsReportedWithNearestMatchAndFix() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/users") { _ in .status(200) }
        try await get("https://api.example.com/users/", from: mocks)
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages == [
                """
                MockNetwork: no handler for GET https://api.example.com/users/.
                Nearest: https://api.example.com/users (trailing slash: the requested path ends in "/", the registered "/users" does not)
                Registered (1):
                  https://api.example.com/users
                Fix: register a handler for this URL, e.g. register("https://api.example.com/users/") { _ in .status(200) }, \
                or correct the URL the client builds.
                """
            ]
        }
        #expect(mocks.failures == [], "verify() forgets what it reported")
    }

    /// A report is an issue with MockNetwork's message, not a caught error: the test threw nothing.
    @Test func aReportIsAnIssueWithItsMessageNotACaughtError() async throws {
        let mocks = MockRegistry()
        try await get("https://api.example.com/none", from: mocks)
        let line = #line + 2
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.error == nil && issue.comments.first?.rawValue.hasPrefix("MockNetwork: no handler for GET") == true
                && issue.sourceLocation?.line == line
        }
    }

    @Test func unmetExpectedCallCountNamesURLExpectedAndActual() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register("https://api.example.com/token", method: "POST", expectedCalls: 2) { _ in .status(200) }
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/token")))
        request.httpMethod = "POST"
        _ = try await mocks.session.data(for: request)
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages == [
                "MockNetwork: expected 2 calls to POST https://api.example.com/token, got 1. "
                    + "Check what the code under test requests, or change expectedCalls."
            ] && issue.sourceLocation?.line == line
        }
    }

    @Test func requestStillInFlightAtTheEndIsReported() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/slow") { _ in MockResponse.status(200).delayed(by: 30) }
        let pending = Task {
            try await mocks.session.data(from: try #require(URL(string: "https://api.example.com/slow")))
        }
        try await waitUntil { mocks.requests.count == 1 }
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages == [
                "MockNetwork: 1 request was still in flight when the test ended: GET https://api.example.com/slow. "
                    + "Await every request (or cancel it) before the test returns; delayed responses and bodies still arriving keep a request open."
            ]
        }
        pending.cancel()
        let error = await #expect(throws: URLError.self) { try await pending.value }
        #expect(error?.code == .cancelled)
    }

    @Test func invalidStatusIsReportedAtTheRegistration() async throws {
        let mocks = MockRegistry()
        let line = #line + 1
        mocks.register("https://api.example.com/bad") { _ in .status(1000) }
        try await get("https://api.example.com/bad", from: mocks)
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.messages.first?.hasPrefix("MockNetwork: 1000 is not an HTTP status code.") == true
                && issue.sourceLocation?.line == line
                && issue.sourceLocation?.fileID == "MockNetworkTests/FailureReportingTests.swift"
        }
    }

    @Test func traitReportsAtTheEndOfTheTest() async throws {
        let test = try #require(Test.current)
        try await withKnownIssue {
            try await MockNetworkTrait.mockNetwork.provideScope(for: test, testCase: nil) {
                let mocks = MockRegistry.current
                _ = try? await mocks.session.data(from: try #require(URL(string: "https://api.example.com/nothing")))
            }
        } matching: { issue in
            issue.messages.first?.hasPrefix("MockNetwork: no handler for GET https://api.example.com/nothing.")
                == true && issue.sourceLocation?.line == test.sourceLocation.line
        }
    }

    @Test func currentOutsideTheTraitSaysHowToFixIt() throws {
        let test = try #require(Test.current)
        withKnownIssue {
            _ = MockRegistry.current
        } matching: { issue in
            issue.messages == [
                "MockNetwork: MockRegistry.current was read in currentOutsideTheTraitSaysHowToFixIt(), which does not "
                    + "have the .mockNetwork trait, so there is no registry for it. Add the trait: @Test(.mockNetwork) "
                    + "or @Suite(.mockNetwork)."
            ] && issue.sourceLocation == test.sourceLocation
        }
    }
}

/// Polls `condition` every 10 ms for up to 10 s.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    for _ in 0..<1000 where !condition() {
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect(condition())
}

extension Issue {
    /// What the issue says: MockNetwork's message (its comment), an error's description, or the
    /// comments of any other issue.
    var messages: [String] {
        error.map { ["\($0)"] } ?? comments.map(\.rawValue)
    }
}
