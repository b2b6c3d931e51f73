import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// The issue's spelling, `register(.graphQL("GetUser", variables: ["id": 7])) { request, operation in … }`,
/// compiles and reads the operation on both surfaces (a registry, the test case); and how a closure
/// that never reads the operation is written. The requests here send the ID as a number, as that
/// spelling expects; Apollo iOS sends an `ID` as a string, which `["id": "7"]` matches
/// (`GraphQLRequests`).
final class GraphQLHandlerFormTests: MockNetworkTestCase {
    private func getUser(_ id: Int) -> URLRequest {
        GraphQLRequests.post(#"{"query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":\#(id)}}"#)
    }

    private func answer(_ request: URLRequest, on session: URLSession) async throws -> String {
        String(decoding: try await session.data(for: request).0, as: UTF8.self)
    }

    func testTheIssuesSpellingOnARegistry() async throws {
        let registry = MockRegistry()
        registry.register(.graphQL("GetUser", variables: ["id": 7])) { request, operation in
            .graphQL(
                data: #"{"user": {"id": \#(operation.variables["id"]!), "op": "\#(operation.name!)"}}"#,
                for: request)
        }

        let body = try await answer(getUser(7), on: registry.session)
        XCTAssertEqual(body, #"{"data":{"user": {"id": 7, "op": "GetUser"}}}"#)
        XCTAssertTrue(registry.failures.isEmpty)
    }

    func testTheIssuesSpellingOnTheTestCase() async throws {
        register(.graphQL("GetUser", variables: ["id": 7])) { request, operation in
            .graphQL(
                data: #"{"user": {"id": \#(operation.variables["id"]!), "op": "\#(operation.name!)"}}"#,
                for: request)
        }
        register(.graphQL("GetUser", variables: ["id": 8])) { request, operation async throws in
            .graphQL(data: #"{"type": "\#(operation.type!.rawValue)"}"#, for: request)
        }

        let seven = try await answer(getUser(7), on: session)
        let eight = try await answer(getUser(8), on: session)
        XCTAssertEqual(seven, #"{"data":{"user": {"id": 7, "op": "GetUser"}}}"#)
        XCTAssertEqual(eight, #"{"data":{"type": "query"}}"#)
    }

    /// The spelling the GraphQL article gives for a file that imports Apollo iOS, whose `ApolloAPI`
    /// has a `GraphQLOperation` of its own.
    func testTheModuleQualifiedNameOfTheOperationPicksItsForm() async throws {
        register(.graphQL("GetUser", variables: ["id": 7])) { (_, operation: GraphQLOperation) in
            .text("\(type(of: operation)) \(operation.variables["id"]?.intValue ?? 0)")
        }

        let body = try await answer(getUser(7), on: session)
        XCTAssertEqual(body, "GraphQLOperation 7")
    }

    /// The example in the doc comment of `register(_:…)` with a `(request, operation)` handler, as
    /// written there (a test below checks, line for line), answers `GetUser` as Apollo iOS sends it:
    /// its `ID!` variable a string.
    func testTheDocCommentsExampleAnswersApollosStringID() async throws {
        // Doc comment: MockRegistry.register(_:expectedCalls:…:_:) with (request, operation)
        mocks.register(.graphQL("GetUser")) { request, operation in
            let id = operation.variables["id"]?.stringValue ?? "?"
            return .graphQL(data: #"{"user": {"id": "\#(id)"}}"#, for: request)
        }
        // (end of snippet)
        let apollo = GraphQLRequests.apollo(
            name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash,
            body: #"{"operationName":"GetUser","query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"7"}}"#)

        let body = try await answer(apollo, on: session)
        XCTAssertEqual(body, #"{"data":{"user": {"id": "7"}}}"#)
    }

    /// The doc comment's example is the code of the test above.
    func testTheDocCommentsExampleIsTheCodeOfATestHere() throws {
        let here = URL(fileURLWithPath: #filePath)
        let source = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/MockNetworkGraphQL")
            .appendingPathComponent("MockRegistry+GraphQL.swift")
        let comment = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "/// ```swift\n")[1]
            .components(separatedBy: "/// ```")[0]
        let trimmed = { (text: String) in
            text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.hasPrefix("///") ? String($0.dropFirst(3)).trimmingCharacters(in: .whitespaces) : $0 }
                .filter { !$0.isEmpty }.joined(separator: "\n")
        }
        let test = try String(contentsOf: here, encoding: .utf8)
        XCTAssertTrue(trimmed(test).contains(trimmed(comment)), "not in a test here:\n\(comment)")
    }

    /// A handler that does not need the operation takes the request alone; `{ request, _ in … }`
    /// fits the `(request, parameters)` form too, so it does not compile (neither form is
    /// disfavored: the compiler says "ambiguous use of 'register'" instead of picking one).
    func testAClosureOfTheRequestAloneAnswersAGraphQLMatch() async throws {
        register(.graphQL("GetUser", variables: ["id": 7])) { request in
            .graphQL(data: #"{"user": {"id": "7"}}"#, for: request)
        }

        let body = try await answer(getUser(7), on: session)
        XCTAssertEqual(body, #"{"data":{"user": {"id": "7"}}}"#)
    }

    /// A closure that reads a member of its second parameter, or names its type, gets that kind:
    /// one that only passes it on to generic code names the type (unnamed, it would not compile).
    func testAClosureThatReadsOrNamesTheOperationGetsIt() async throws {
        register(.graphQL("GetUser", variables: ["id": 7])) { (_, operation: GraphQLOperation) in
            .text(String(describing: type(of: operation)))
        }
        register(.graphQL("GetUser", variables: ["id": 8])) { _, operation in
            .text("\(type(of: operation)) \(operation.variables["id"]!)")
        }

        let seven = try await answer(getUser(7), on: session)
        let eight = try await answer(getUser(8), on: session)
        XCTAssertEqual(seven, "GraphQLOperation")
        XCTAssertEqual(eight, "GraphQLOperation 8")
    }
}
