import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// With no `operationName`, the name and type come from the document's only operation: comments,
/// strings, block strings and fragment definitions skipped, a lone `{ … }` a query.
@Suite struct GraphQLDocumentTests {
    /// The operation a `POST` of `document` (and `operationName`, when given) carries.
    private func operation(_ document: String, named name: String? = nil) throws -> GraphQLOperation {
        var fields: JSONValue = ["query": .string(document)]
        if let name { fields = ["query": .string(document), "operationName": .string(name)] }
        return try #require(try GraphQLOperation.operations(in: GraphQLRequests.post(fields.description)).first)
    }

    private func nameAndType(_ document: String, named name: String? = nil) throws -> String {
        let operation = try operation(document, named: name)
        return "\(operation.type?.rawValue ?? "nil") \(operation.name ?? "nil")"
    }

    @Test func commentsAreSkipped() throws {
        let document = """
            # query Fake { x }
            # mutation AlsoFake { y }
            query Real { a } # subscription Trailing { b }
            """
        #expect(try nameAndType(document) == "query Real")
    }

    @Test func stringsThatHoldOperationsAreSkipped() throws {
        let document = #"""
            query Real($q: String = "query Fake {") {
              search(text: "mutation Fake { \" } #") { id }
              note(text: """
                subscription Fake { x }
                \""" still inside
                """)
            }
            """#
        #expect(try nameAndType(document) == "query Real")
        #expect(try nameAndType(#"mutation Save { save(text: "{ query Q { a } }") }"#) == "mutation Save")
    }

    @Test func fragmentsBeforeTheOperationAreSkipped() throws {
        let document = """
            fragment UserFields on User { id name friends { ...FriendFields } }
            fragment FriendFields on User { id }

            subscription OnUser($id: ID!) { userChanged(id: $id) { ...UserFields } }
            """
        #expect(try nameAndType(document) == "subscription OnUser")
    }

    @Test func anonymousQueries() throws {
        #expect(try nameAndType("{ user { id } }") == "query nil")
        #expect(try nameAndType("query { a }") == "query nil")
        #expect(try nameAndType("query ($id: ID!) { user(id: $id) { name } }") == "query nil")
        #expect(try nameAndType("mutation{a}") == "mutation nil")
        #expect(try nameAndType("fragment F on Q { a }\n{ ...F }") == "query nil")
    }

    @Test func variableDefaultsDirectivesCommasAndAByteOrderMark() throws {
        #expect(
            try nameAndType(
                #"query Q($f: Filter = {tags: ["a"], nested: {x: 1}}) @live(if: true) { items(filter: $f) { id } }"#)
                == "query Q")
        #expect(try nameAndType("\u{FEFF}query,Named,{a}") == "query Named")
        #expect(try nameAndType("\tsubscription\r\nS\r\n{ a }") == "subscription S")
    }

    /// An operation needs its selection set: free text that starts with a keyword, or a document cut
    /// off before its `{`, is no document (a `{` in a variable's default or a directive's argument
    /// is no selection set).
    @Test func anOperationWithNoSelectionSetIsNoDocument() throws {
        for document in [
            "subscription plans", "query GetUser($id: ID!)", "query Q($f: F = {a: 1}) @d(x: {b: 2})", "mutation",
        ] {
            #expect(throws: GraphQLFormatError.self) { try operation(document) }
            #expect((try? operation(document)) == nil, "\(document)")
        }
        #expect(try nameAndType("query Q($f: F = {a: 1}) @d(x: {b: 2}) { a }") == "query Q")
        #expect(try nameAndType("subscription plans { a }") == "subscription plans")
        let batch = GraphQLRequests.post(#"[{"query":"{ a }"},{"query":"query on sale"}]"#)
        #expect(
            throws: GraphQLFormatError.notGraphQL(
                "POST https://api.example.com/graphql is no GraphQL request: the query of operation 2 of its "
                    + #"batch, "query on sale", is no GraphQL document: query on has no selection set ({ … }). "#
                    + "Send a document such as query GetUser { user { id } }.")
        ) { try GraphQLOperation.operations(in: batch) }
    }

    @Test func operationNamePicksOneOfSeveral() throws {
        let document = "query A { a } mutation B { b } subscription C { c }"
        #expect(try nameAndType(document, named: "B") == "mutation B")
        #expect(try nameAndType(document, named: "C") == "subscription C")
        #expect(try nameAndType("query GetUser { a }", named: "GetUser") == "query GetUser")
    }

    @Test func documentsThatNameNoSingleOperation() {
        func message(_ document: String, named name: String? = nil) -> String {
            do {
                _ = try operation(document, named: name)
                return "no error"
            } catch let error as GraphQLFormatError {
                guard case .unresolvedOperation = error else { return "\(error)" }
                return "\(error)"
            } catch {
                return "\(error)"
            }
        }
        let prefix = "MockNetwork: the GraphQL document of POST https://api.example.com/graphql "
        #expect(
            message("query A { a } mutation B { b }")
                == prefix + "defines 2 operations (query A, mutation B) and the request names none. Send "
                + "operationName to say which one to run.")
        #expect(
            message("query A { a } { b }", named: "C")
                == prefix + "defines no operation named \"C\" (it defines query A, query (anonymous)). Send the "
                + "operationName of an operation the document defines.")
        #expect(
            message("fragment F on User { id }")
                == prefix
                + "defines no operation (a query, mutation or subscription). Send a document that defines one.")
        #expect(
            message("", named: "A") == prefix
                + "defines no operation named \"A\" (it defines none). Send the operationName of an operation the document defines."
        )
        #expect(
            message("query A { a(b: \"never\n) }")
                == prefix + "has a string that never ends (from line 1). End it with \" on the same line.")
        #expect(
            message("query A {\n a(b: \"\"\"never) }")
                == prefix + "has a block string that never ends (from line 2). End it with \"\"\".")
    }
}
