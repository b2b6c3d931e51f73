// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetwork
    import MockNetworkServer
    import MockNetworkTesting
    import XCTest

    /// Live handlers across a process boundary, as a UI test has them: the built `CatBreedsDemo`, in a
    /// process of its own that gets only an environment, sends its request to this test's `MockServer`,
    /// and this test's handler answers it; what the app showed is its output.
    final class CatBreedsDemoLiveTests: XCTestCase {
        private let breedsURL = "https://cats.example.com/breeds.json"

        /// What the demo shows, launched as a UI test launches its app with `mocks` served live.
        private func launch(servedBy mocks: MockRegistry) throws -> DemoProcess.Run {
            let server = try MockServer(serving: mocks)
            defer { server.stop() }
            var environment = DemoProcess.cleanEnvironment
            environment.mockNetwork(server: server)
            return try DemoProcess.run(DemoProcess.builtDemo(), environment: environment, timeout: 60)
        }

        func testTheLaunchedAppIsAnsweredByThisTestsHandler() throws {
            let mocks = MockRegistry()
            let seen = Shared<[String: String]>([:])
            mocks.register(.url(breedsURL)) { request in
                seen.update { $0 = request.allHTTPHeaderFields ?? [:] }
                return .json(
                    #"""
                    {"breeds": [{"name": "Sphynx", "popularity": 10, "known_for": "almost no hair",
                    "photo_url": "https://cats.example.com/photos/sphynx.jpg",
                    "info_url": "https://cats.example.com/sphynx", "credit": "A test", "license": "CC0",
                    "description": "Warm to the touch."}]}
                    """#)
            }
            let run = try launch(servedBy: mocks)

            XCTAssertEqual(run.status, 0, run.errors)
            XCTAssertEqual(run.output, "== live ==\n1. Sphynx — popularity 10 — known for almost no hair\n")
            XCTAssertEqual(run.errors, "")
            XCTAssertEqual(mocks.requests.map(\.url.absoluteString), [breedsURL], "logged with the app's URL")
            XCTAssertNil(seen.current["MockNetwork-Forwarding-Secret"], "the forwarding's fields are stripped")
            XCTAssertEqual(mocks.failures, [])
        }

        func testARequestNoHandlerMatchesFailsTheAppAndIsTheTestsFailure() throws {
            let mocks = MockRegistry()
            mocks.register("https://cats.example.com/breeds.xml") { _ in .text("<breeds/>") }
            let run = try launch(servedBy: mocks)

            XCTAssertEqual(run.status, 0, run.errors)
            XCTAssertEqual(run.output, "== live ==\ncould not load breeds\n", "the app's request failed")
            let failures = mocks.takeFailures()
            XCTAssertEqual(failures.count, 1)
            XCTAssertTrue(
                failures.first?.message.hasPrefix("MockNetwork: no handler for GET \(breedsURL)") == true,
                failures.first?.message ?? "none")
        }
    }
#endif
