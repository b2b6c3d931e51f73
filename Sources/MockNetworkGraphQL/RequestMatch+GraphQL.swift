import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matching the GraphQL operation a request carries: `.graphQL(_:type:variables:allVariables:)`,
/// a rule of the core's content kind (`GraphQLContent`).
extension RequestMatch {
    /// What a GraphQL match asks of a request's operation.
    package struct GraphQLRule: ContentRule {
        let name: String?
        let type: GraphQLOperation.OperationType?
        let variables: [String: JSONValue]?
        let allVariables: Bool
        /// What an archive's redaction wrote in place of a secret: an expected variable holding it
        /// fits any value there (`RedactedVariables.swift`); `nil` outside archives.
        package var redactedValue: String?

        /// How much it narrows: a name more than variables, variables more than a type.
        package var specificity: Int {
            (name == nil ? 0 : 100) + (type == nil ? 0 : 1) + (allVariables ? 1 : 0)
                + (variables.map { 10 + min($0.count, 9) } ?? 0)
        }

        /// `query GetUser`, `operation GetUser`, `mutation (any name)`.
        var shownName: String { "\(type?.rawValue ?? "operation") \(name ?? "(any name)")" }
    }

    /// The same match, only for requests to `endpoint`, whatever their query (a GraphQL `GET` sends
    /// the operation there): `.graphQL("GetUser").at("https://api.example.com/graphql")`.
    public func at(_ endpoint: String) -> RequestMatch { onlyAt(endpoint) }

    /// The same match, only for requests to `endpoint`, whatever their query.
    public func at(_ endpoint: URL) -> RequestMatch { at(endpoint.absoluteString) }

    /// The GraphQL rule of this match, if it has one.
    package var graphQL: GraphQLRule? {
        get { content as? GraphQLRule }
        set { content = newValue }
    }

    /// What an operation has that `rule` does not ask for: `variables.id 8 ≠ 7`.
    static func differences(_ operation: GraphQLOperation, _ rule: GraphQLRule) -> [String] {
        var out: [String] = []
        if let name = rule.name, operation.name != name {
            out.append("operation name \(operation.name ?? "(none)") ≠ \(name)")
        }
        if let type = rule.type, operation.type != type {
            out.append("operation type \(operation.type?.rawValue ?? "(unknown)") ≠ \(type.rawValue)")
        }
        let expected = rule.variables ?? [:]
        for (key, value) in expected.sorted(by: { $0.key < $1.key }) {
            if let have = operation.variables[key] {
                if !rule.fits(have, value) {
                    out.append("variables.\(key) \(have) ≠ \(value)" + typeNote(key, have, value))
                }
            } else {
                out.append("variables.\(key) missing")
            }
        }
        if rule.allVariables {
            for key in operation.variables.keys.sorted() where expected[key] == nil {
                out.append("variables.\(key) not expected")
            }
        }
        return out
    }

    /// For a variable with the text `expected` has but another JSON type (`"7"` for `7`): which types
    /// differ, and how to register what came; empty otherwise. The values still differ: only the
    /// message says more.
    private static func typeNote(_ key: String, _ have: JSONValue, _ expected: JSONValue) -> String {
        guard have.kind != expected.kind, let text = have.scalarText, text == expected.scalarText else { return "" }
        let why =
            if case .string = have, case .number = expected { ": GraphQL sends ID values as strings" } else { "" }
        return " (\(have.kind), not \(expected.kind)\(why); register [\(JSONValue.string(key)): \(have)])"
    }
}

extension RequestMatch.GraphQLRule {
    package var kind: any ContentKind.Type { GraphQLContent.self }

    package var lookupKey: String? { name }

    /// The rule in words: `GraphQL query GetUser with variables {"id": "7"}`.
    package var words: String {
        var text = "GraphQL " + shownName
        if let variables {
            text +=
                (allVariables ? " with exactly variables " : " with variables ")
                + JSONValue.object(variables).description
        } else if allVariables {
            text += " with no variables"
        }
        return text
    }

    package func holds(_ reading: BodyReading) -> Bool {
        guard let operation = reading.graphQL.operation else { return false }
        if let name, operation.name != name { return false }
        if let type, operation.type != type { return false }
        let expected = variables ?? [:]
        if allVariables, operation.variables.count != expected.count { return false }
        for (key, value) in expected where !fits(operation.variables[key], value) { return false }
        return true
    }

    package func mismatches(_ reading: BodyReading) -> [String] {
        if let operation = reading.graphQL.operation { return RequestMatch.differences(operation, self) }
        return ["no GraphQL operation" + (reading.graphQL.operationProblem.map { ": " + $0 } ?? "")]
    }

    package func counted(_ reading: BodyReading) -> (fitting: Int, nearest: [String])? {
        guard let batch = reading.graphQL.batch else { return nil }
        let inside = batch.map { RequestMatch.differences($0, self) }
        let fitting = inside.filter(\.isEmpty).count
        guard fitting == 0, let nearest = inside.indices.min(by: { inside[$0].count < inside[$1].count }) else {
            return (fitting, [])
        }
        return (0, inside[nearest].map { "operation \(nearest + 1) of the batch: \($0)" })
    }

    package func asksOtherKey(_ reading: BodyReading) -> Bool {
        guard let name, let operation = reading.graphQL.operation else { return false }
        return name != operation.name
    }
}

extension JSONValue {
    /// The text of a string, number, boolean or null as a person reads it (a string without its
    /// quotes), to tell `"7"` from `7`; `nil` for an array or object.
    fileprivate var scalarText: String? {
        switch self {
        case .string(let string): string
        case .number, .bool, .null: description
        case .array, .object: nil
        }
    }
}

// Where `register` finds the builders of a match (see `RequestMatchConvertible`).
extension RequestMatchConvertible where Self == RequestMatch {
    /// Requests that carry one GraphQL operation (a `POST`'s JSON, a `GET`'s query items, an upload's
    /// `operations` field) with this name and type, whose variables hold `variables` (compared as
    /// JSON; others may be there too), or are exactly `variables` with `allVariables`.
    ///
    /// ```swift
    /// mocks.register(.graphQL("GetUser", variables: ["id": "7"])) { request, operation in
    ///     .graphQL(data: #"{"user": {"id": "7", "name": "Ada"}}"#, for: request)
    /// }
    /// ```
    ///
    /// Any URL, unless narrowed with `at(_:)`. A GraphQL match outranks every match that
    /// reads no operation (an app sends all of them to one URL); among GraphQL matches, one at an
    /// endpoint outranks one at any URL, and a name outranks variables, which outrank a type.
    /// A batch (a JSON array of operations) matches none here: a handler answers one operation, and
    /// a batch no handler answers whole is answered operation by operation, each by the handler that
    /// matches it alone (so is one a default would answer whole, when a handler of the test's
    /// matches one of its operations). The checks after the fact (`requests(matching:)`, `expect(_:count:)`,
    /// `nextRequest(matching:)`) look inside: a batch is a request that matches when one of its
    /// operations does, and `expect` counts each operation that does.
    ///
    /// - Parameters:
    ///   - name: the operation's name, if it must have this one.
    ///   - type: query, mutation or subscription, if it must be this one.
    ///   - variables: variables the operation must send with these values (an `ID` as a string, as
    ///     clients such as Apollo iOS send it).
    ///   - allVariables: when true, the operation's variables must be exactly `variables` (none
    ///     when `variables` is `nil`).
    public static func graphQL(
        _ name: String? = nil, type: GraphQLOperation.OperationType? = nil, variables: [String: JSONValue]? = nil,
        allVariables: Bool = false
    ) -> RequestMatch {
        RequestMatch.carrying(
            RequestMatch.GraphQLRule(name: name, type: type, variables: variables, allVariables: allVariables))
    }
}
