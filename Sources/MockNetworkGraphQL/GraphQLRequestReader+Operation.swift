import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An operation from the fields a request sent (`query`, `operationName`, `variables`, `extensions`):
/// its document read, the operation it names picked, and what a malformed field says.
extension GraphQLRequestReader {
    func operation(fields: [String: JSONValue], batchIndex: Int?) throws -> GraphQLOperation {
        let subject = batchIndex.map { "operation \($0 + 1) of its batch" } ?? "it"
        func string(_ name: String) throws -> String? {
            switch fields[name] {
            case nil, .null?: return nil
            case .string(let text)?: return text.isEmpty && name == "operationName" ? nil : text
            case let other?:
                throw notGraphQL("\(subject) sends \(name) as \(other.kind), not a string", fix: Self.shapeFix)
            }
        }
        func object(_ name: String) throws -> [String: JSONValue] {
            switch fields[name] {
            case nil, .null?: return [:]
            case .object(let members)?: return members
            // A JSON-encoded object in a string, as some servers take it (Apollo Server does).
            case .string(let text)?: if let members = (try? JSONValue(json: text))?.objectValue { return members }
            default: break
            }
            let kind = fields[name]?.kind ?? ""
            throw notGraphQL("\(subject) sends \(name) as \(kind), not an object", fix: Self.shapeFix)
        }
        let document = try string("query")
        let operationName = try string("operationName")
        let extensions = try object("extensions")
        let variables = try object("variables")
        guard let document else {
            guard extensions["persistedQuery"]?["sha256Hash"]?.stringValue != nil else {
                throw notGraphQL(
                    "\(subject) sends no query (the document) and no extensions.persistedQuery.sha256Hash (a "
                        + "persisted query's hash)",
                    fix: "Send one of them.")
            }
            // A persisted query's hash alone: the headers Apollo iOS sends tell the rest.
            let single = batchIndex == nil
            let header = { (name: String) in single ? request.value(forHTTPHeaderField: name) : nil }
            return GraphQLOperation(
                name: operationName ?? header("X-APOLLO-OPERATION-NAME"),
                type: header("X-APOLLO-OPERATION-TYPE").flatMap {
                    GraphQLOperation.OperationType(rawValue: $0.lowercased())
                },
                document: nil, variables: variables, extensions: extensions, batchIndex: batchIndex)
        }
        let chosen = try pick(in: document, named: operationName)
        // Free text in a field named `query` (a search's, say) is no document: an operation needs
        // its selection set.
        guard chosen.hasSelectionSet else {
            throw notGraphQL(
                "\(batchIndex == nil ? "its query" : "the query of \(subject)"), "
                    + "\(JSONValue.string(MockRegistry.shortened(document))), is no GraphQL document: "
                    + "\(chosen.type.rawValue) \(chosen.name ?? "(anonymous)") has no selection set ({ … })",
                fix: "Send a document such as query GetUser { user { id } }.", part: "document")
        }
        return GraphQLOperation(
            name: operationName ?? chosen.name, type: chosen.type, document: document, variables: variables,
            extensions: extensions, batchIndex: batchIndex)
    }

    /// The operation of `document` that `name` names, or its only one.
    private func pick(in document: String, named name: String?) throws -> GraphQLDocument.Operation {
        let operations: [GraphQLDocument.Operation]
        do {
            operations = try GraphQLDocument.recentOperations(in: document)
        } catch let error as GraphQLDocument.UnterminatedString {
            throw unresolved(
                "has \(error.block ? "a block string" : "a string") that never ends (from line \(error.line))",
                fix: error.block ? "End it with \"\"\"." : "End it with \" on the same line.", part: "document")
        }
        // Only for a failure's text: a request's lookup reads the document on every request.
        var defined: String {
            operations.map { "\($0.type.rawValue) \($0.name ?? "(anonymous)")" }.joined(separator: ", ")
        }
        if let name {
            guard let operation = operations.first(where: { $0.name == name }) else {
                throw unresolved(
                    "defines no operation named \"\(name)\""
                        + (operations.isEmpty ? " (it defines none)" : " (it defines \(defined))"),
                    fix: "Send the operationName of an operation the document defines.", part: "request")
            }
            return operation
        }
        guard operations.count == 1 else {
            throw operations.isEmpty
                ? unresolved(
                    "defines no operation (a query, mutation or subscription)",
                    fix: "Send a document that defines one.", part: "document")
                : unresolved(
                    "defines \(operations.count) operations (\(defined)) and the request names none",
                    fix: "Send operationName to say which one to run.", part: "request")
        }
        return operations[0]
    }
}
