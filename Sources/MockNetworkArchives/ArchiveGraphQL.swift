import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Replaying GraphQL requests by operation: an app sends every operation to one URL, so an entry
/// that carries a GraphQL operation answers that operation (its name, type and variables), not
/// every request to the URL.
extension HTTPArchive.Matching {
    /// The matches an entry answers and what each answers with.
    ///
    /// With `.methodAndURL` and `.methodAndPath`, an entry whose request carries one named GraphQL
    /// operation answers requests of the same method to the same endpoint (whatever the query: a
    /// `GET` carries the operation there) that carry an operation of that name and type with exactly
    /// its variables, compared as JSON. A recorded variable that redaction replaced (the string
    /// ``HTTPArchive/Redaction/replacement``, whole or inside a string) fits any value there. A batch
    /// whose answer is a JSON array of one result per operation becomes one entry per operation,
    /// answered with its own result: a batch sent again is answered operation by operation, in
    /// order, as a batch no handler answers whole is. Everything else (no GraphQL, an anonymous
    /// operation, a batch answered otherwise, `.methodURLAndBody`, `.custom`) matches as it did.
    func answers(for entry: HTTPArchive.Entry) throws -> [(match: RequestMatch, response: MockResponse)] {
        let whole = { [(match: match(for: entry), response: try MockRegistry.mockResponse(for: entry))] }
        switch kind {
        case .methodAndURL, .methodAndPath: break
        case .methodURLAndBody, .custom: return try whole()
        }
        guard let operations = Self.operations(of: entry), operations.allSatisfy({ $0.name != nil }) else {
            return try whole()
        }
        guard operations.count > 1 || operations[0].batchIndex != nil else {
            return [(graphQLMatch(operations[0], entry), try MockRegistry.mockResponse(for: entry))]
        }
        // A batch: one result per operation, in order, or the entry answers as a whole.
        guard entry.response.status != 0, case .array(let results)? = try? JSONValue(json: entry.response.body.data),
            results.count == operations.count
        else { return try whole() }
        return try zip(operations, results).map { operation, result in
            var single = entry
            single.response.body = HTTPArchive.Body(
                Data(result.description.utf8), mimeType: entry.response.body.mimeType)
            return (graphQLMatch(operation, entry), try MockRegistry.mockResponse(for: single))
        }
    }

    /// `.graphQL(name, type:, variables:, allVariables: true).at(endpoint).method(method)`, with
    /// redacted variables fitting any value.
    private func graphQLMatch(_ operation: GraphQLOperation, _ entry: HTTPArchive.Entry) -> RequestMatch {
        var match = RequestMatch.graphQL(
            operation.name, type: operation.type, variables: operation.variables, allVariables: true
        ).at(entry.request.url).method(entry.request.method)
        match.graphQL?.redactedValue = redactedValue
        return match
    }

    /// The GraphQL operations the entry's request carries; `nil` when it is no GraphQL request.
    static func operations(of entry: HTTPArchive.Entry) -> [GraphQLOperation]? {
        // Most entries carry no GraphQL: a look at the text tells, before anything is parsed (an
        // archive of 20,000 entries is read at once).
        let body = entry.request.body?.data ?? Data()
        switch entry.request.method.uppercased() {
        case "GET":
            guard entry.request.url.contains("query=") || entry.request.url.contains("extensions=") else { return nil }
        case "POST":
            // `query`, or `persistedQuery` for a hash alone.
            guard body.range(of: Data("uery".utf8)) != nil else { return nil }
        default:
            return nil
        }
        guard let url = URLText.url(entry.request.url) else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = entry.request.method
        for header in entry.request.headers where !header.name.hasPrefix(":") {
            request.addValue(header.value, forHTTPHeaderField: header.name)
        }
        return try? GraphQLOperation.operations(in: request, body: body)
    }
}
