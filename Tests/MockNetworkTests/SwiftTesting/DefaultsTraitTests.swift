import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The suite's defaults, kept in one place as a user would.
enum FlagsAPI {
    @Sendable static func defaults(_ mocks: MockRegistry) {
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": false}"#) }
        mocks.register(.host("api.example.com", path: "/v1/*")) { _ in .status(404) }
    }
}

/// Reads a body through the registry's session.
private func text(_ mocks: MockRegistry, _ address: String) async throws -> (Int, String) {
    let (data, response) = try await mocks.session.data(from: try #require(URL(string: address)))
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// `.mockNetwork(defaults:)`: every test, and every case, starts with the suite's defaults.
@Suite(.mockNetwork(defaults: FlagsAPI.defaults))
struct DefaultsTraitTests {
    @Test func everyTestStartsWithTheDefaults() async throws {
        let mocks = MockRegistry.current
        #expect(try await text(mocks, "https://api.example.com/flags") == (200, #"{"beta": false}"#))
        #expect(try await text(mocks, "https://api.example.com/v1/users/7").0 == 404)
    }

    @Test(arguments: [true, false])
    func aTestsOwnHandlerWinsForItsRequestInEachCase(beta: Bool) async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": \#(beta)}"#) }
        #expect(try await text(mocks, "https://api.example.com/flags") == (200, #"{"beta": \#(beta)}"#))
        #expect(try await text(mocks, "https://api.example.com/v1/users/7").0 == 404, "the other defaults stay")
    }

    /// A test's own `.mockNetwork` registers its defaults after the suite's (so the same match
    /// registered again is the test trait's); the innermost gives the registry, with both sets.
    @Test(
        .mockNetwork(requiringEveryHandlerCalled: true) { mocks in
            mocks.register("https://api.example.com/v1/users/7") { _ in .json(#"{"name": "Ada"}"#) }
            mocks.register(.host("api.example.com", path: "/v1/*")) { _ in .status(410) }
        })
    func aTestsTraitAddsDefaultsToTheSuites() async throws {
        let mocks = MockRegistry.current
        #expect(try await text(mocks, "https://api.example.com/v1/users/7") == (200, #"{"name": "Ada"}"#))
        #expect(try await text(mocks, "https://api.example.com/v1/users/8").0 == 410)
        // The suite's /flags default, never called, does not fail requiringEveryHandlerCalled.
    }
}

/// Defaults that throw, through a trait this suite does not have (so it gives the registry).
@Suite
struct DefaultsTraitFailureTests {
    @Test func defaultsThatThrowAreAnIssueOfTheTest() async throws {
        struct Missing: Error, CustomStringConvertible {
            var description: String { "the fixture flags.json is missing" }
        }
        let test = try #require(Test.current)
        let reached = Shared("")
        let trait = MockNetworkTrait.mockNetwork { mocks in
            mocks.register("https://api.example.com/before") { _ in .text("registered before the throw") }
            throw Missing()
        }
        try await withKnownIssue {
            try await trait.provideScope(for: test, testCase: nil) {
                reached.update { $0 = "" }
                let (_, body) = try await text(MockRegistry.current, "https://api.example.com/before")
                reached.update { $0 = body }
            }
        } matching: { issue in
            issue.messages
                == [
                    "MockNetwork: the defaults of .mockNetwork(defaults:) threw the fixture flags.json is missing. "
                        + "The test runs with the defaults registered before that; fix what threw there."
                ]
        }
        #expect(reached.current == "registered before the throw")
    }
}

/// Defaults that read `MockRegistry.current` (instead of the registry they are handed) get the
/// test's registry: they run inside the trait's scope.
@Suite(
    .mockNetwork(defaults: { _ in
        MockRegistry.current.register("https://api.example.com/current", answer: .text("from current"))
    }))
struct DefaultsReadingCurrentTests {
    @Test func defaultsThatReadCurrentRegisterOnTheTestsRegistry() async throws {
        let mocks = MockRegistry.current
        #expect(try await text(mocks, "https://api.example.com/current") == (200, "from current"))
    }
}
