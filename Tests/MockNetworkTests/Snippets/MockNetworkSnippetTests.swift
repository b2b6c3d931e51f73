import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippets of MockNetwork.md (the MockNetwork catalog's front page), as written there
// (ArticleSnippetTests checks them): they compile here, and run.

/// The article's client: the hound images of dog.ceo.
private struct DogAPI {
    let session: URLSession

    private struct Images: Decodable {
        let message: [URL]
    }

    func houndImages() async throws -> [URL] {
        let (data, _) = try await session.data(from: URL(string: "https://dog.ceo/api/breed/hound/images")!)
        return try JSONDecoder().decode(Images.self, from: data).message
    }
}

final class MockNetworkSnippetTests: XCTestCase {
    /// The overview's test case passes. `ReadmeSnippetTests` has a `DogAPITests` too, so this one is
    /// declared here (see `runLocalTests`).
    func testTheOverviewsTestCasePasses() throws {
        // MockNetwork.md: Overview
        final class DogAPITests: MockNetworkTestCase {
            func testFetchesHoundImages() async throws {
                let api = DogAPI(session: session)
                // swift-format-ignore
                register("https://dog.ceo/api/breed/hound/images") { request in
                    XCTAssertEqual(request.httpMethod, "GET")
                    return .json(#"""
                        {"message": ["https://images.dog.ceo/a.jpg"],
                         "status": "success"}
                        """#)
                }
                let images = try await api.houndImages()
                XCTAssertEqual(images.count, 1)
            }
        }
        // (end of snippet)
        #if !canImport(ObjectiveC)
            runLocalTests(DogAPITests.self, [("testFetchesHoundImages", asyncTest(DogAPITests.testFetchesHoundImages))])
        #endif
    }
}
