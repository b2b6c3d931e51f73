import Foundation
import MockNetwork
import MockNetworkApp
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of MockNetworkApp.md (the MockNetworkApp catalog's front page), an app's code at
// launch, as written there (ArticleSnippetTests checks it), inside a test: it compiles here, and
// runs. UITests.md opens with the same code.

/// The app's client: where the breeds are, and the session it asks them with.
private struct CatBreedsClient {
    let breedsURL: URL
    let session: URLSession
}

final class MockNetworkAppSnippetTests: XCTestCase {
    /// Launched by no UI test (nothing in the environment names a scenario, an archive or a server),
    /// the app talks to its real server.
    func testTheLaunchLineFallsBackToTheSharedSessionWhenNoTestLaunchedTheApp() throws {
        let asked = ["MOCKNETWORK_SCENARIO", "MOCKNETWORK_ARCHIVE", "MOCKNETWORK_SERVER"]
        try XCTSkipIf(
            asked.contains { ProcessInfo.processInfo.environment[$0] != nil },
            "this run's own environment asks for mocks")
        let breedsURL = URL(string: "https://cats.example.com/breeds.json")!

        // MockNetworkApp.md: Overview; UITests.md: Overview
        #if DEBUG
            let stubs = ["https://cats.example.com/breeds.json": "breeds"]
            let session =
                try MockRegistry.launched(stubs: stubs)?.session
                ?? URLSession.shared
        #else
            let session = URLSession.shared
        #endif
        let client = CatBreedsClient(breedsURL: breedsURL, session: session)
        // (end of snippet)

        XCTAssertTrue(client.session === URLSession.shared)
        XCTAssertEqual(client.breedsURL.absoluteString, "https://cats.example.com/breeds.json")
    }
}
