import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// Operations read from requests as the GraphQL-over-HTTP specification and Apollo iOS 1.25 send them.
@Suite struct GraphQLOperationTests {
    typealias R = GraphQLRequests

    /// The specification's GET example (section "GET", Example), URL as it gives it.
    @Test func specificationGETExample() throws {
        let url =
            "http://example.com/graphql?query=query(%24id%3A%20ID!)%7Buser(id%3A%24id)%7Bname%7D%7D"
            + "&variables=%7B%22id%22%3A%22QVBJcy5ndXJ1%22%7D"
        let operation = try #require(GraphQLOperation(URLRequest(url: URL(string: url)!)))
        #expect(operation.name == nil)
        #expect(operation.type == .query)
        #expect(operation.document == "query($id: ID!){user(id:$id){name}}")
        #expect(operation.variables == ["id": "QVBJcy5ndXJ1"])
        #expect(operation.extensions == [:])
        #expect(operation.batchIndex == nil)
    }

    /// The specification's POST example (section "POST", Example), headers and body as it gives them.
    @Test func specificationPOSTExample() throws {
        let body = """
            {
              "query": "query ($id: ID!) {\\n  user(id: $id) {\\n    name\\n  }\\n}",
              "variables": {
                "id": "QVBJcy5ndXJ1"
              }
            }
            """
        let request = R.post(
            body, headers: ["Content-Type": "application/json", "Accept": "application/graphql-response+json"])
        let operation = try #require(GraphQLOperation(request))
        #expect(operation.name == nil)
        #expect(operation.type == .query)
        #expect(operation.document == "query ($id: ID!) {\n  user(id: $id) {\n    name\n  }\n}")
        #expect(operation.variables == ["id": "QVBJcy5ndXJ1"])
    }

    /// The body is the one Apollo iOS 1.25.7 sent, byte for byte: its `ID!` variable a string.
    @Test func apolloQueryAsSent() throws {
        let body =
            #"{"extensions":{\#(R.clientLibrary)},"operationName":"GetUser","query":"\#(R.getUserDocument)","variables":{"id":"7"}}"#
        #expect(body.utf8.count == 197)  // the captured Content-Length
        let request = R.apollo(name: "GetUser", type: "query", operationID: R.getUserHash, body: body)
        let operation = try #require(GraphQLOperation(request))
        #expect(operation.name == "GetUser")
        #expect(operation.type == .query)
        #expect(operation.document == R.getUserDocument)
        #expect(operation.variables == ["id": "7"])
        #expect(operation.variables["id"] != 7)
        #expect(operation.extensions == ["clientLibrary": ["name": "apollo-ios", "version": "1.25.7"]])
        #expect(operation.persistedQueryHash == nil)
        #expect(operation.description == #"query GetUser {"id":"7"}"#)
    }

    @Test func apolloMutationWithInputObject() throws {
        let document =
            "mutation CreateReview($episode: Episode, $review: ReviewInput!) { createReview(episode: $episode, review: $review) { __typename stars commentary } }"
        let body =
            #"{"extensions":{\#(R.clientLibrary)},"operationName":"CreateReview","query":"\#(document)","variables":{"episode":"JEDI","review":{"commentary":"Great!","stars":5}}}"#
        let request = R.apollo(
            name: "CreateReview", type: "mutation",
            operationID: "ca4723ea598cb01349958811fe0e369b7d22ed2834da88feda36264962814fcd", body: body)
        let operation = try #require(GraphQLOperation(request))
        #expect(operation.type == .mutation)
        #expect(operation.variables == ["review": ["stars": 5.0, "commentary": "Great!"], "episode": "JEDI"])
        struct Variables: Decodable, Equatable {
            struct Review: Decodable, Equatable {
                var stars: Int
                var commentary: String
            }
            var episode: String
            var review: Review
        }
        #expect(
            try operation.variables(as: Variables.self)
                == Variables(episode: "JEDI", review: .init(stars: 5, commentary: "Great!")))
    }

    /// Automatic persisted queries as Apollo iOS sends them: the hash alone, then (after
    /// `PersistedQueryNotFound`) the hash with the document, as POST or as GET query items.
    @Test func apolloPersistedQueryFlow() throws {
        let persisted = R.persistedQuery(R.getUserHash)
        let headers = R.apolloHeaders(name: "GetUser", type: "query", operationID: R.getUserHash)

        let first = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","variables":{"id":"7"}}"#,
            headers: headers)
        #expect(first.httpBody?.count == 233)  // the captured Content-Length
        let hashOnly = try #require(GraphQLOperation(first))
        #expect(hashOnly.name == "GetUser")
        #expect(hashOnly.type == .query)  // from X-APOLLO-OPERATION-TYPE: no document says
        #expect(hashOnly.document == nil)
        #expect(hashOnly.persistedQueryHash == R.getUserHash)
        #expect(hashOnly.extensions["persistedQuery"] == ["version": 1, "sha256Hash": .string(R.getUserHash)])
        #expect(hashOnly.variables == ["id": "7"])

        let retry = R.post(
            #"{"extensions":{\#(R.clientLibrary),\#(persisted)},"operationName":"GetUser","query":"\#(R.getUserDocument)","variables":{"id":"7"}}"#,
            headers: headers)
        #expect(retry.httpBody?.count == 308)
        let withDocument = try #require(GraphQLOperation(retry))
        #expect(withDocument.document == R.getUserDocument)
        #expect(withDocument.persistedQueryHash == R.getUserHash)

        let extensions = #"{\#(R.clientLibrary),\#(persisted)}"#
        let firstGET = R.apolloGET(
            [("extensions", extensions), ("operationName", "GetUser"), ("variables", #"{"id":"7"}"#)], headers: headers)
        #expect(firstGET.httpMethod == "GET")
        #expect(
            firstGET.url?.absoluteString
                == "https://api.example.com/graphql?extensions=%7B%22clientLibrary%22:%7B%22name%22:%22apollo-ios%22,"
                + "%22version%22:%221.25.7%22%7D,%22persistedQuery%22:%7B%22sha256Hash%22:%22\(R.getUserHash)%22,"
                + "%22version%22:1%7D%7D&operationName=GetUser&variables=%7B%22id%22:%227%22%7D")  // as captured
        #expect(try GraphQLOperation.operations(in: firstGET) == [hashOnly])
        let retryGET = R.apolloGET(
            [
                ("extensions", extensions), ("operationName", "GetUser"), ("query", R.getUserDocument),
                ("variables", #"{"id":"7"}"#),
            ],
            headers: headers)
        let capturedQueryItem =
            "&query=query%20GetUser($id:%20ID!)%20%7B%20user(id:%20$id)%20%7B%20__typename%20id%20name%20%7D%20%7D&"
        #expect(retryGET.url?.absoluteString.contains(capturedQueryItem) == true)
        #expect(try GraphQLOperation.operations(in: retryGET) == [withDocument])
    }

    /// Without Apollo's headers a hash alone says no type; `+` in a query item is a space, `%2B` a plus.
    @Test func queryItemsAndAHashWithoutHeaders() throws {
        let url = URL(
            string:
                "https://api.example.com/graphql?extensions=%7B%22persistedQuery%22%3A%7B%22sha256Hash%22%3A%22abc%22%7D%7D&operationName=&variables="
        )!
        let operation = try #require(GraphQLOperation(URLRequest(url: url)))
        #expect(operation.name == nil)
        #expect(operation.type == nil)
        #expect(operation.persistedQueryHash == "abc")
        #expect(operation.variables == [:])
        let plus = URL(string: "https://api.example.com/graphql?query=query+Q+%7B+a(b%3A+%22x%2By%22)+%7D")!
        let search = try #require(GraphQLOperation(URLRequest(url: plus)))
        #expect(search.document == #"query Q { a(b: "x+y") }"#)
        #expect(search.name == "Q")
    }

    /// Apollo iOS's `GET` encodes `+` as `%2B` and `;` as `%3B` in a query item; both read back as sent.
    @Test func apolloGETEncodesPlusAndSemicolon() throws {
        let get = R.apolloGET(
            [
                ("operationName", "Search"), ("query", "query Search($q: String!) { search(q: $q) { __typename id } }"),
                ("variables", #"{"q":"a+b;c"}"#),
            ],
            headers: R.apolloHeaders(
                name: "Search", type: "query",
                operationID: "50542bf758361af584fafdf3e4200058022079c9062411ed7bc246cbd98c487b"))
        #expect(get.url?.absoluteString.hasSuffix("&variables=%7B%22q%22:%22a%2Bb%3Bc%22%7D") == true)
        #expect(try #require(GraphQLOperation(get)).variables == ["q": "a+b;c"])
    }

    @Test func batchesInOrder() throws {
        let request = R.post(
            #"[{"query":"query A { a }"},{"query":"mutation B($x: Int) { b(x: $x) }","variables":{"x":1}},{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"h"}}}]"#
        )
        let operations = try GraphQLOperation.operations(in: request)
        #expect(operations.map(\.name) == ["A", "B", nil])
        #expect(operations.map(\.type) == [.query, .mutation, nil])
        #expect(operations.map(\.batchIndex) == [0, 1, 2])
        #expect(operations[1].variables == ["x": 1])
        #expect(operations[2].persistedQueryHash == "h")
        #expect(GraphQLOperation(request) == nil)
        #expect(try GraphQLOperation.operations(in: R.post(#"[{"query":"{ a }"}]"#)).map(\.batchIndex) == [0])
    }

    /// An upload as Apollo iOS sends it: the operation in the `operations` field of a form.
    @Test func uploadsReadTheOperationsField() throws {
        let body = crlf(
            #"""
            --apollo-ios.boundary.1
            Content-Disposition: form-data; name="operations"

            {"operationName":"Upload","query":"mutation Upload($file: Upload!) { upload(file: $file) { id } }","variables":{"file":null}}
            --apollo-ios.boundary.1
            Content-Disposition: form-data; name="map"

            {"0":["variables.file"]}
            --apollo-ios.boundary.1--
            """#)
        var request = R.post("", headers: ["Content-Type": "multipart/form-data; boundary=apollo-ios.boundary.1"])
        request.httpBody = body
        let operation = try #require(GraphQLOperation(request))
        #expect(operation.name == "Upload")
        #expect(operation.type == .mutation)
        #expect(operation.variables == ["file": nil])
    }

    @Test func variablesSentAsJSONTextAndNulls() throws {
        let operation = try #require(
            GraphQLOperation(
                R.post(#"{"query":"{ a }","variables":"{\"id\": 7}","operationName":null,"extensions":null}"#)))
        #expect(operation.variables == ["id": 7])
        #expect(operation.name == nil)
        #expect(operation.extensions == [:])
    }

    @Test func variablesThatDoNotDecodeSayWhy() throws {
        let operation = try #require(
            GraphQLOperation(R.post(#"{"query":"query GetUser { a }","variables":{"id":"seven"}}"#)))
        struct Variables: Decodable { var id: Int }
        #expect(throws: MockNetworkError.self) { try operation.variables(as: Variables.self) }
        do {
            _ = try operation.variables(as: Variables.self)
        } catch {
            #expect("\(error)".hasPrefix("MockNetwork: the variables of query GetUser are not a Variables: "))
            #expect("\(error)".hasSuffix(#"(at id). The variables: {"id":"seven"}."#))
        }
    }
}
