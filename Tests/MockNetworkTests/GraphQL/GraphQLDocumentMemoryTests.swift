import Testing

@testable import MockNetwork
@testable import MockNetworkGraphQL

/// Documents read lately are remembered: the same operations as a fresh read, and a broken
/// document fails every time it is read.
@Suite struct GraphQLDocumentMemoryTests {
    @Test func aRememberedDocumentGivesWhatAFreshReadGives() throws {
        let document = "# feed\nquery Feed($first: Int) { posts(first: $first) { id } }\nmutation Like { like }"
        let fresh = try GraphQLDocument.operations(in: document)
        #expect(fresh == [.init(type: .query, name: "Feed"), .init(type: .mutation, name: "Like")])
        #expect(try GraphQLDocument.recentOperations(in: document) == fresh)
        #expect(try GraphQLDocument.recentOperations(in: document) == fresh)
    }

    @Test func aBrokenDocumentFailsEveryTime() {
        let broken = #"query Q { a(text: "never ends) }"#
        for _ in 0..<2 {
            #expect(throws: GraphQLDocument.UnterminatedString.self) {
                try GraphQLDocument.recentOperations(in: broken)
            }
        }
    }

    @Test func moreThanItKeepsStillReadEach() throws {
        for index in 0..<200 {
            let operations = try GraphQLDocument.recentOperations(in: "query Q\(index) { a }")
            #expect(operations == [.init(type: .query, name: "Q\(index)")])
        }
    }
}
