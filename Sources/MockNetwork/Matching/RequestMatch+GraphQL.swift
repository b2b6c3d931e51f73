import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matching what is inside a body: a GraphQL operation, multipart parts.
extension RequestMatch {
    /// What a GraphQL match asks of a request's operation.
    package struct GraphQLRule: Sendable {
        let name: String?
        let type: GraphQLOperation.OperationType?
        let variables: [String: JSONValue]?
        let allVariables: Bool
        /// What an archive's redaction wrote in place of a secret: an expected variable holding it
        /// fits any value there (`RedactedVariables.swift`); `nil` outside archives.
        package var redactedValue: String?

        /// How much it narrows: a name more than variables, variables more than a type.
        var specificity: Int {
            (name == nil ? 0 : 100) + (type == nil ? 0 : 1) + (allVariables ? 1 : 0)
                + (variables.map { 10 + min($0.count, 9) } ?? 0)
        }

        /// `query GetUser`, `operation GetUser`, `mutation (any name)`.
        var shownName: String { "\(type?.rawValue ?? "operation") \(name ?? "(any name)")" }
    }

    /// A part a multipart body must have.
    struct PartRule: Sendable {
        let name: String
        let filename: String?
        let contentType: String?
    }

    /// Requests that carry one GraphQL operation (a `POST`'s JSON, a `GET`'s query items, an upload's
    /// `operations` field) with this name and type, whose variables hold `variables` (compared as
    /// JSON; others may be there too), or are exactly `variables` with `allVariables`.
    ///
    /// ```swift
    /// mocks.register(.graphQL("GetUser", variables: ["id": "7"])) { request, operation in
    ///     try .graphQL(data: #"{"user": {"id": "7", "name": "Ada"}}"#, for: request)
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
        var match = RequestMatch(target: .pattern(host: "*", path: nil))
        match.graphQL = GraphQLRule(name: name, type: type, variables: variables, allVariables: allVariables)
        return match
    }

    /// The same match, only for requests to `endpoint`, whatever their query (a GraphQL `GET` sends
    /// the operation there): `.graphQL("GetUser").at("https://api.example.com/graphql")`.
    public func at(_ endpoint: String) -> RequestMatch {
        var copy = self
        copy.target =
            URLKeys.absoluteString(endpoint).map { .url(URLKeys.key($0, .ignored), .ignored) } ?? .invalid(endpoint)
        return copy
    }

    /// The same match, only for requests to `endpoint`, whatever their query.
    public func at(_ endpoint: URL) -> RequestMatch { at(endpoint.absoluteString) }

    /// Only requests whose `multipart/form-data` (or `multipart/mixed`) body has a part named `name`,
    /// with this filename and content type when given (the content type compared without its
    /// parameters, case-insensitively).
    ///
    /// ```swift
    /// mocks.register(.url("https://api.example.com/avatar").part("avatar", contentType: "image/png")) { _ in
    ///     try .status(201)
    /// }
    /// ```
    public func part(_ name: String, filename: String? = nil, contentType: String? = nil) -> RequestMatch {
        var copy = self
        copy.parts.append(PartRule(name: name, filename: filename, contentType: contentType))
        return copy
    }

    /// The GraphQL and part rules in words, for ``description``.
    var bodyRuleWords: [String] {
        var out: [String] = []
        if let graphQL {
            var text = "GraphQL " + graphQL.shownName
            if let variables = graphQL.variables {
                text +=
                    (graphQL.allVariables ? " with exactly variables " : " with variables ")
                    + JSONValue.object(variables).description
            } else if graphQL.allVariables {
                text += " with no variables"
            }
            out.append(text)
        }
        for part in parts {
            var text = "with part \(part.name)"
            if let filename = part.filename { text += " filename \(filename)" }
            if let contentType = part.contentType { text += " type \(contentType)" }
            out.append(text)
        }
        return out
    }

    /// Why the body fails the GraphQL and part rules, one phrase each; empty when it passes.
    func bodyRuleMismatches(_ reading: BodyReading) -> [String] {
        var out: [String] = []
        if let rule = graphQL {
            if let operation = reading.operation {
                out += Self.differences(operation, rule)
            } else {
                out.append("no GraphQL operation" + (reading.operationProblem.map { ": " + $0 } ?? ""))
            }
        }
        for rule in parts {
            out += Self.differences(reading.parts, rule)
        }
        return out
    }

    /// Whether the body passes the GraphQL and part rules, building no failure text (a lookup asks
    /// this of every GraphQL route, most of them of another operation).
    func bodyRulesHold(_ reading: BodyReading) -> Bool {
        if let rule = graphQL {
            guard let operation = reading.operation else { return false }
            if let name = rule.name, operation.name != name { return false }
            if let type = rule.type, operation.type != type { return false }
            let expected = rule.variables ?? [:]
            if rule.allVariables, operation.variables.count != expected.count { return false }
            for (key, value) in expected where !rule.fits(operation.variables[key], value) { return false }
        }
        return parts.isEmpty || bodyRuleMismatches(reading).isEmpty
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

    private static func differences(_ reading: Result<[MultipartPart], any Error>, _ rule: PartRule) -> [String] {
        let parts: [MultipartPart]
        switch reading {
        case .success(let read): parts = read
        case .failure: return ["part \(rule.name) missing: the body is not multipart"]
        }
        let named = parts.filter { $0.name == rule.name }
        guard !named.isEmpty else { return ["part \(rule.name) missing"] }
        if named.contains(where: { Self.fits($0, rule) }) { return [] }
        var out: [String] = []
        if let filename = rule.filename, !named.contains(where: { $0.filename == filename }) {
            out.append("part \(rule.name) filename \(named[0].filename ?? "(none)") ≠ \(filename)")
        }
        if let type = rule.contentType, !named.contains(where: { Self.typeFits($0, type) }) {
            out.append("part \(rule.name) type \(named[0].contentType ?? "(none)") ≠ \(type)")
        }
        return out.isEmpty ? ["part \(rule.name) filename and type differ"] : out
    }

    private static func fits(_ part: MultipartPart, _ rule: PartRule) -> Bool {
        rule.filename.map { part.filename == $0 } ?? true && rule.contentType.map { typeFits(part, $0) } ?? true
    }

    private static func typeFits(_ part: MultipartPart, _ type: String) -> Bool {
        guard let have = part.contentType else { return false }
        return HeaderValue(have).lowercased == HeaderValue(type).lowercased
    }
}

/// A request's body as the GraphQL, part and JSON rules read it: parsed once, when a rule first asks,
/// however many routes look. Lives for one lookup, on one thread.
final class BodyReading {
    let request: URLRequest
    let body: Data

    /// `operations`: what an earlier lookup of the same request read, when there was one.
    init(_ request: URLRequest, body: Data, operations: Result<[GraphQLOperation], any Error>? = nil) {
        self.request = request
        self.body = body
        self.operationsRead = operations
    }

    /// The largest body a lookup reads on Foundation's queue (inside `startLoading`): a larger one is
    /// read where handlers run, so a large body never holds the queue every session shares.
    static let inlineLimit = 64 * 1024

    /// The body as `.jsonBody` compares it, read once however many routes ask; `nil` when it is not JSON.
    var json: JSONValue? {
        if let jsonRead { return jsonRead }
        let read = try? JSONValue(json: body)
        jsonRead = .some(read)
        return read
    }

    private var jsonRead: JSONValue??

    /// The request's operations, as far as a rule has asked for them; `nil` when none has.
    private(set) var operationsRead: Result<[GraphQLOperation], any Error>?

    /// Why the request carries no operation, in pieces, when this reading read it and found none.
    private(set) var problem: GraphQLRequestReader.Problem?

    private var operations: Result<[GraphQLOperation], any Error> {
        if let operationsRead { return operationsRead }
        let read: Result<[GraphQLOperation], any Error>
        do {
            read = .success(try GraphQLRequestReader(request: request, body: body).operations())
        } catch let problem as GraphQLRequestReader.Problem {
            self.problem = problem
            read = .failure(problem.error)
        } catch {
            read = .failure(error)
        }
        operationsRead = read
        return read
    }

    /// The one operation the request carries; `nil` for a batch or a request that is no GraphQL one.
    var operation: GraphQLOperation? {
        guard case .success(let list) = operations, list.count == 1, list[0].batchIndex == nil else { return nil }
        return list[0]
    }

    /// A batch's operations, in order; `nil` for a request that carries no batch. Only the checks
    /// after the fact ask (`RequestMatch+Checks.swift`): a lookup never looks inside a batch.
    var batch: [GraphQLOperation]? {
        guard case .success(let list) = operations, list.first?.batchIndex != nil else { return nil }
        return list
    }

    /// Why there is no ``operation``, as a phrase about the request (`its body is not JSON`); `nil`
    /// when there is one.
    var operationProblem: String? {
        switch operations {
        case .failure where problem != nil: return problem?.reason
        // Read by an earlier lookup, which kept the error alone.
        case .failure(GraphQLFormatError.unresolvedOperation): return "its document names no one operation"
        case .failure(GraphQLFormatError.notGraphQL): return "it is no GraphQL request"
        case .failure(is MultipartFormatError): return "its multipart body is malformed"
        case .failure: return "its body is malformed"
        case .success(let list) where list.count != 1 || list[0].batchIndex != nil:
            return "it carries a batch of \(list.count)"
        case .success: return nil
        }
    }

    private(set) lazy var parts: Result<[MultipartPart], any Error> = Result {
        try MultipartPart.parts(of: request, body: body)
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
