// This file imports MockNetworkTesting and Testing only, as a user's test file does: the types a
// handler names (URLRequest, HTTPURLResponse, URLSession, URL, Data) come with MockNetworkTesting,
// on Linux too, where they live in FoundationNetworking.
import MockNetworkTesting
import Testing

@Suite(.mockNetwork)
struct OneImportTests {
    @Test func aHandlerInTheTutorialsShapeNeedsNoOtherImport() async throws {
        let mocks = MockRegistry.current
        let url = URL(string: "https://api.example.com/user")!
        mocks.register(url) { (request: URLRequest) -> (HTTPURLResponse, Data) in
            (HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: nil)!, Data("hi".utf8))
        }
        let session: URLSession = mocks.session
        let (data, response) = try await session.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        #expect(String(decoding: data, as: UTF8.self) == "hi")
    }
}
