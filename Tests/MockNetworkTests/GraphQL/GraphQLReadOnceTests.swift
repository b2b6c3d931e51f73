import Foundation
import Testing

@testable import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
    @testable import MockNetworkGraphQL
#endif

#if DEBUG
    /// A handler that takes `(request, operation)` gets the operation its request's lookup read: the
    /// body is read as GraphQL once a request, as the GraphQL article says, not again for the handler.
    /// (Counted with the reader's debug-build hook, on a body no other test sends.)
    @Suite struct GraphQLReadOnceTests {
        private let mocks = MockRegistry()

        /// The request's answer as text, and how many times its body was read as GraphQL meanwhile.
        private func answerAndReads(id: String) async throws -> (answer: String, reads: Int) {
            let request = GraphQLRequests.post(
                #"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"\#(id)"}}"#)
            let body = try #require(request.httpBody)
            GraphQLRequestReader.watch(body)
            let data: Data
            do {
                data = try await mocks.session.data(for: request).0
            } catch {
                _ = GraphQLRequestReader.stopWatching(body)
                throw error
            }
            return (String(decoding: data, as: UTF8.self), GraphQLRequestReader.stopWatching(body))
        }

        @Test func aSynchronousHandlerGetsTheOperationTheLookupRead() async throws {
            let id = UUID().uuidString
            mocks.register(.graphQL("GetUser")) { _, operation in
                .text("\(operation.name ?? "") \(operation.variables["id"]?.stringValue ?? "")")
            }

            let (answer, reads) = try await answerAndReads(id: id)
            #expect(answer == "GetUser \(id)")
            #expect(reads == 1)
        }

        @Test func anAsyncHandlerGetsTheOperationTheLookupRead() async throws {
            let id = UUID().uuidString
            mocks.register(.graphQL("GetUser", type: .query)) { _, operation async throws in
                .text("\(operation.type?.rawValue ?? "") \(operation.variables["id"]?.stringValue ?? "")")
            }

            let (answer, reads) = try await answerAndReads(id: id)
            #expect(answer == "query \(id)")
            #expect(reads == 1)
        }

        /// A `.when` predicate stops the lookup on Foundation's queue, and the lookup is made again
        /// where user code may run: that one, and the handler, reuse what the first read.
        @Test func aLookupMadeAgainForAPredicateReadsNoMore() async throws {
            let id = UUID().uuidString
            mocks.register(.graphQL("GetUser").when { $0.httpMethod == "POST" }) { _, operation in
                .text(operation.variables["id"]?.stringValue ?? "")
            }

            let (answer, reads) = try await answerAndReads(id: id)
            #expect(answer == id)
            #expect(reads == 1)
        }

        /// A match that reads no operation (a URL) leaves the reading to the handler: once, there.
        @Test func aHandlerWhoseMatchReadsNoOperationReadsItOnce() async throws {
            let id = UUID().uuidString
            mocks.register(.url(GraphQLRequests.endpoint.absoluteString)) { (_, operation: GraphQLOperation) in
                .text(operation.variables["id"]?.stringValue ?? "")
            }

            let (answer, reads) = try await answerAndReads(id: id)
            #expect(answer == id)
            #expect(reads == 1)
        }
    }
#endif
