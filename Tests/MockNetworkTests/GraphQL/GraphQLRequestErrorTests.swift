import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// A request that is no GraphQL-over-HTTP request gives an error saying why; `init?` gives `nil`.
@Suite struct GraphQLRequestErrorTests {
    private let prefix = "MockNetwork: POST https://api.example.com/graphql is no GraphQL request: "
    private let shapeFix = #"Send {"query": "…", "variables": {…}}, or an array of them for a batch."#

    private func message(_ request: URLRequest) -> String {
        #expect(GraphQLOperation(request) == nil)
        do {
            _ = try GraphQLOperation.operations(in: request)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    private func message(body: String) -> String { message(GraphQLRequests.post(body)) }

    @Test func bodiesThatAreNoOperation() {
        #expect(message(body: "query { a }") == prefix + "its body is not JSON. " + shapeFix)
        #expect(message(body: "") == prefix + "its body is not JSON. " + shapeFix)
        #expect(message(body: "7") == prefix + "its body is a number, not an object. " + shapeFix)
        #expect(message(body: "[]") == prefix + "its body is an empty batch. Send at least one operation.")
        #expect(
            message(body: #"[{"query":"{ a }"}, "b"]"#)
                == prefix
                + #"operation 2 of its batch is a string, not an object. Send each operation of a batch as {"query": …}."#
        )
        #expect(
            message(body: #"{"variables":{}}"#)
                == prefix + "it sends no query (the document) and no extensions.persistedQuery.sha256Hash (a "
                + "persisted query's hash). Send one of them.")
        #expect(
            message(body: #"[{"query":"{ a }"}, {"extensions":{"persistedQuery":{"version":1}}}]"#)
                == prefix + "operation 2 of its batch sends no query (the document) and no "
                + "extensions.persistedQuery.sha256Hash (a persisted query's hash). Send one of them.")
    }

    /// Two bodies a client that meant GraphQL sends: one cut off, and a document sent as
    /// `application/graphql` (which GraphQL over HTTP does not define).
    @Test func aCutOffBodyAndAnApplicationGraphQLDocumentSayWhatTheyAre() {
        #expect(
            message(body: #"{"query":"{ a }","variables":{"id":"7"#)
                == prefix + "its body is cut off: it ends after 37 bytes, inside its JSON. Send the whole of it.")
        #expect(
            message(body: #"[{"query":"{ a }"},"#)
                == prefix + "its body is cut off: it ends after 19 bytes, inside its JSON. Send the whole of it.")
        #expect(message(body: #"{"query":"{ a }"}}"#) == prefix + "its body is not JSON. " + shapeFix)
        let document = GraphQLRequests.post(
            "query { a }", headers: ["Content-Type": "application/graphql; charset=utf-8"])
        #expect(
            message(document)
                == prefix + "its body is a GraphQL document sent as application/graphql, which GraphQL over HTTP "
                + #"does not define. Send {"query": "…"} as application/json."#)
    }

    /// Variables nested past what a JSON reader takes read as "not a GraphQL request" before.
    @Test func variablesNestedTooDeeplySaySo() {
        let nested = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        #expect(
            message(body: #"{"query":"{ a }","variables":{"deep":\#(nested)}}"#)
                == prefix + "its JSON nests 602 levels deep, more than the 512 a JSON reader takes (Foundation's "
                + "JSONDecoder included). Nest its variables less deeply.")
        // 510 levels of variables (512 in the body) are read.
        let fits = String(repeating: "[", count: 510) + String(repeating: "]", count: 510)
        #expect(
            (try? GraphQLOperation.operations(
                in: GraphQLRequests.post(#"{"query":"{ a }","variables":{"deep":\#(fits)}}"#)))?
                .count == 1)
    }

    @Test func fieldsOfTheWrongType() {
        #expect(message(body: #"{"query":7}"#) == prefix + "it sends query as a number, not a string. " + shapeFix)
        #expect(
            message(body: #"{"query":"{ a }","operationName":["A"]}"#)
                == prefix + "it sends operationName as an array, not a string. " + shapeFix)
        #expect(
            message(body: #"{"query":"{ a }","variables":[1]}"#)
                == prefix + "it sends variables as an array, not an object. " + shapeFix)
        #expect(
            message(body: #"{"query":"{ a }","variables":"not json"}"#)
                == prefix + "it sends variables as a string, not an object. " + shapeFix)
        #expect(
            message(body: #"{"query":"{ a }","extensions":true}"#)
                == prefix + "it sends extensions as a boolean, not an object. " + shapeFix)
    }

    @Test func methodsAndQueryItems() {
        var put = GraphQLRequests.post(#"{"query":"{ a }"}"#)
        put.httpMethod = "PUT"
        #expect(
            message(put)
                == "MockNetwork: PUT https://api.example.com/graphql is no GraphQL request: GraphQL over HTTP sends "
                + "GET or POST. Send the operation with one of them.")
        let get = URLRequest(url: URL(string: "https://api.example.com/graphql?query=%7Ba%7D&variables=%7Bid%7D")!)
        #expect(
            message(get)
                == "MockNetwork: GET https://api.example.com/graphql?query=%7Ba%7D&variables=%7Bid%7D is no GraphQL "
                + #"request: its query item variables is not JSON. Send it JSON-encoded: variables={"id":7}."#)
        let none = URLRequest(url: URL(string: "https://api.example.com/graphql")!)
        #expect(
            message(none).hasSuffix(
                "it sends no query (the document) and no extensions.persistedQuery.sha256Hash (a persisted query's hash). Send one of them."
            ))
    }

    @Test func uploadsWithoutTheirOperations() {
        var request = GraphQLRequests.post("", headers: ["Content-Type": "multipart/form-data; boundary=b"])
        request.httpBody = crlf("--b\nContent-Disposition: form-data; name=\"file\"\n\nx\n--b--")
        #expect(
            message(request)
                == prefix + "its multipart/form-data body has no field \"operations\". Send the operation there, as "
                + "the GraphQL multipart request spec says.")
        request.httpBody = Data("no parts".utf8)
        #expect(throws: MultipartFormatError.boundaryNotFound(boundary: "b")) {
            try GraphQLOperation.operations(in: request)
        }
    }
}
