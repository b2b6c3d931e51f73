import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The snippet of PlatformDifferences.md, as written there (ArticleSnippetTests checks it): it
// compiles here, and runs.

@Suite(.mockNetwork)
struct PlatformDifferencesSnippetTests {
    @Test func aHandlersOwnErrorIsCheckedByItsDomain() async throws {
        let mocks = MockRegistry.current
        // PlatformDifferences.md: Checking a handler's own error on Apple platforms
        struct Teapot: Error {}
        mocks.register("https://api.example.com/tea") { _ in throw Teapot() }
        do {
            let tea = URL(string: "https://api.example.com/tea")!
            _ = try await mocks.session.data(from: tea)
        } catch {
            let error = error as NSError
            #expect(error.domain.hasSuffix("Teapot"))
        }
        // (end of snippet)

        // The same request again, checked to fail (the snippet's `do` does not check that it does):
        let tea = URL(string: "https://api.example.com/tea")!
        let error = await #expect(throws: (any Error).self) { _ = try await mocks.session.data(from: tea) }
        let domain = error.map { ($0 as NSError).domain }
        #expect(domain?.hasSuffix("Teapot") == true, "\(String(describing: domain))")
        #expect(mocks.requests.map(\.url) == [tea, tea])
    }
}
