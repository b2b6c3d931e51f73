import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// GraphQL as a kind of content the core reads through (``ContentKind``): routes filed by operation
/// name, a batch split into its operations and its answers joined, the words of reports.
enum GraphQLContent: ContentKind {
    static let name = "GraphQL"
    static let unit = "operation"

    static func lookupKeys(_ reading: BodyReading) -> [String]? {
        guard let operation = reading.graphQL.operation else { return nil }
        return operation.name.map { [$0] } ?? []
    }

    static func shown(_ reading: BodyReading, includingSeveral: Bool) -> String? {
        if let operation = reading.graphQL.operation { return operation.description }
        guard includingSeveral, let batch = reading.graphQL.batch else { return nil }
        return "batch: " + batch.map(\.description).joined(separator: ", ")
    }

    static func problem(_ reading: BodyReading) -> ContentProblem? {
        guard reading.graphQL.operation == nil, let problem = reading.graphQL.problem else { return nil }
        return ContentProblem(reason: problem.reason, part: problem.part, fix: problem.fix)
    }

    /// `graphql` in its path or its `Content-Type`, as where GraphQL endpoints are and how some clients
    /// label the body. (A GraphQL match at any URL fits every request, a REST one too: its fix is
    /// about the URL then.)
    static func looksMeant(_ request: RecordedRequest) -> Bool {
        let contentType = request.request.value(forHTTPHeaderField: "Content-Type") ?? ""
        return request.url.path.range(of: "graphql", options: .caseInsensitive) != nil
            || contentType.range(of: "graphql", options: .caseInsensitive) != nil
    }

    /// A batch's operations as the requests each makes alone: `recorded` with each operation as its
    /// JSON body, in order; `nil` for a request that is no batch of operations sent as JSON.
    static func split(_ recorded: RecordedRequest, _ reading: BodyReading) -> [(request: URLRequest, body: Data)]? {
        // The cheap checks first: most requests are no batch.
        let contentType = recorded.request.value(forHTTPHeaderField: "Content-Type") ?? ""
        guard recorded.method.uppercased() == "POST", !HeaderValue(contentType).lowercased.hasPrefix("multipart/"),
            recorded.body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "["),
            reading.graphQL.batch != nil, case .array(let elements)? = try? JSONValue(json: recorded.body),
            !elements.isEmpty
        else { return nil }
        return elements.map { element in
            var single = recorded.request
            let body = Data(element.description.utf8)
            single.httpBody = body
            single.setValue(nil, forHTTPHeaderField: "Content-Length")
            return (single, body)
        }
    }

    /// The operations' answers as a JSON array, in order, with the first answer's `Content-Type`.
    static func joined(_ answers: [(headers: [String: String], body: Data)]) throws -> MockResponse {
        let type = answers.lazy.compactMap { answer in
            answer.headers.first { $0.key.caseInsensitiveCompare("Content-Type") == .orderedSame }?.value
        }.first
        let bodies = answers.map { String(decoding: $0.body, as: UTF8.self) }
        return try MockResponse(
            headers: ["Content-Type": type ?? "application/json"], body: Data("[\(bodies.joined(separator: ","))]".utf8)
        )
    }

    static func registerFix(_ reading: BodyReading) -> String? {
        guard let operation = reading.graphQL.operation else { return nil }
        let name = operation.name.map { "\"\($0)\"" } ?? "type: .\(operation.type?.rawValue ?? "query")"
        return "Fix: register a handler for this operation, e.g. register(.graphQL(\(name))) { request in "
            + ".graphQL(data: \"{}\", for: request) }."
    }
}

/// What a request's body holds as GraphQL, read once per request (``BodyReading``'s cache).
struct GraphQLReading: Sendable {
    /// The operations, or why there are none.
    let operations: Result<[GraphQLOperation], any Error>
    /// Why the request carries no operation, in pieces, when reading found none.
    let problem: GraphQLRequestReader.Problem?

    init(_ request: URLRequest, body: Data) {
        do {
            operations = .success(try GraphQLRequestReader(request: request, body: body).operations())
            problem = nil
        } catch let problem as GraphQLRequestReader.Problem {
            self.problem = problem
            operations = .failure(problem.error)
        } catch {
            operations = .failure(error)
            problem = nil
        }
    }

    /// The one operation the request carries; `nil` for a batch or a request that is no GraphQL one.
    var operation: GraphQLOperation? {
        guard case .success(let list) = operations, list.count == 1, list[0].batchIndex == nil else { return nil }
        return list[0]
    }

    /// A batch's operations, in order; `nil` for a request that carries no batch.
    var batch: [GraphQLOperation]? {
        guard case .success(let list) = operations, list.first?.batchIndex != nil else { return nil }
        return list
    }

    /// Why there is no ``operation``, as a phrase about the request (`its body is not JSON`); `nil`
    /// when there is one.
    var operationProblem: String? {
        switch operations {
        case .failure where problem != nil: return problem?.reason
        case .failure(GraphQLFormatError.unresolvedOperation): return "its document names no one operation"
        case .failure(GraphQLFormatError.notGraphQL): return "it is no GraphQL request"
        case .failure(is MultipartFormatError): return "its multipart body is malformed"
        case .failure: return "its body is malformed"
        case .success(let list) where list.count != 1 || list[0].batchIndex != nil:
            return "it carries a batch of \(list.count)"
        case .success: return nil
        }
    }
}

extension BodyReading {
    /// The body as GraphQL, read once however many routes ask.
    var graphQL: GraphQLReading { read(GraphQLReading.self, GraphQLReading.init) }
}

extension MockRegistry {
    /// Makes the registry's reports read GraphQL even where no GraphQL handler is registered: an
    /// unmatched request then names its operation and how to register a handler for it.
    package func readsGraphQL() {
        reads(GraphQLContent.self)
    }
}
