import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// Answers as a GraphQL server gives them: data, errors or both, in the media type the request accepts.
@Suite struct GraphQLAnswerTests {
    private let apollo = GraphQLRequests.apollo(
        name: "GetUser", type: "query", operationID: GraphQLRequests.getUserHash,
        body:
            #"{"extensions":{\#(GraphQLRequests.clientLibrary)},"operationName":"GetUser","query":"\#(GraphQLRequests.getUserDocument)","variables":{"id":"7"}}"#
    )

    private func text(_ response: MockResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func dataAsWrittenInTheMediaTypeApolloAsksFor() throws {
        let response = MockResponse.graphQL(data: #" {"user": {"id": "7", "name": "Ada"}} "#, for: apollo)
        #expect(text(response) == #"{"data":{"user": {"id": "7", "name": "Ada"}}}"#)
        #expect(response.status == 200)
        #expect(response.headers == ["Content-Type": "application/graphql-response+json; charset=utf-8"])
    }

    @Test func mediaTypeFollowsAccept() throws {
        func type(_ accept: String?) throws -> String? {
            var request = URLRequest(url: GraphQLRequests.endpoint)
            request.setValue(accept, forHTTPHeaderField: "Accept")
            return MockResponse.graphQL(data: "{}", for: request).headers["Content-Type"]
        }
        let graphQL = "application/graphql-response+json; charset=utf-8"
        let json = "application/json; charset=utf-8"
        #expect(try type("application/graphql-response+json, application/json;q=0.9") == graphQL)  // the spec's advice
        #expect(try type("application/graphql-response+json") == graphQL)
        #expect(try type("Application/GraphQL-Response+JSON;charset=utf-8") == graphQL)
        #expect(try type("application/json") == json)
        #expect(try type("application/json, application/graphql-response+json") == json)
        #expect(try type("application/graphql-response+json;q=0.5, application/json") == json)
        #expect(try type("application/graphql-response+json;q=0, application/json;q=0.1") == json)
        #expect(try type("*/*") == json)
        #expect(try type(nil) == json)
        #expect(MockResponse.graphQL(data: "{}").headers["Content-Type"] == json)
        let own = MockResponse.graphQL(data: "{}", for: apollo, headers: ["content-type": "application/json"])
        #expect(own.headers == ["content-type": "application/json"])
    }

    @Test func errorsAloneAreARequestError() throws {
        let error = MockResponse.GraphQLError(
            message: "Cannot query field \"nam\" on type \"User\".", locations: [.init(line: 2, column: 3)])
        let response = MockResponse.graphQL(errors: [error], for: apollo, status: 400)
        #expect(response.status == 400)
        #expect(
            text(response)
                == #"{"errors":[{"locations":[{"column":3,"line":2}],"message":"Cannot query field \"nam\" on type \"User\"."}]}"#
        )
    }

    @Test func dataAndErrorsAreAPartialResult() throws {
        let response = MockResponse.graphQL(
            data: #"{"user": {"id": "7", "friends": [null]}}"#,
            errors: [
                .init(message: "No friend 8", path: ["user", "friends", 0], extensions: ["code": "NOT_FOUND"])
            ],
            extensions: ["cost": 3])
        #expect(
            text(response)
                == #"{"data":{"user": {"id": "7", "friends": [null]}},"errors":[{"extensions":{"code":"NOT_FOUND"},"#
                + #""message":"No friend 8","path":["user","friends",0]}],"extensions":{"cost":3}}"#)
        let nulled = MockResponse.graphQL(data: "null", errors: [.init(message: "boom")])
        #expect(text(nulled) == #"{"data":null,"errors":[{"message":"boom"}]}"#)
    }

    @Test func dataEncodedFromAValue() throws {
        struct User: Encodable {
            var id: String
            var name: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let response = MockResponse.graphQL(
            data: ["user": User(id: "7", name: "Ada")], errors: [.init(message: "late")], encoder: encoder, for: apollo)
        #expect(text(response) == #"{"data":{"user":{"id":"7","name":"Ada"}},"errors":[{"message":"late"}]}"#)
        #expect(response.headers["Content-Type"] == "application/graphql-response+json; charset=utf-8")
        let typed: JSONValue = ["user": ["id": 7]]
        #expect(text(MockResponse.graphQL(data: typed)) == #"{"data":{"user":{"id":7}}}"#)
    }

    @Test func dataThatIsNoObjectIsAClearError() {
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                "the GraphQL answer's data [1] is an array, but GraphQL's data is an object of the operation's fields "
                    + #"(or null). Give the fields, such as {"user": {"id": "7"}}."#)
        ) { try MockResponse.graphQL(data: "[1]").validated() }
        #expect(
            throws: GraphQLFormatError.invalidAnswer(
                #"the GraphQL answer's data {user: 7} is not JSON. Give a JSON object, such as {"user": {"id": "7"}}, "#
                    + #"or "null"."#)
        ) { try MockResponse.graphQL(data: "{user: 7}").validated() }
        #expect(throws: GraphQLFormatError.self) { try MockResponse.graphQL(data: [1, 2]).validated() }
        #expect(throws: GraphQLFormatError.self) { try MockResponse.graphQL(data: ["score": Double.nan]).validated() }
        #expect(throws: MockNetworkError.invalidStatusCode(99)) {
            try MockResponse.graphQL(data: "{}", status: 99).validated()
        }
    }
}
