import Foundation
import MockNetwork
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import MockNetworkGraphQL
#endif

/// Thousands of random bodies, documents and query strings through the GraphQL readers and the
/// answer builders: each gives a value or a clear error, never a crash.
@Suite struct GraphQLFuzzTests {
    private let documentTokens = [
        "query", "mutation", "subscription", "fragment", " ", "\n", "\r", ",", "#", "\"", "\"\"\"", "\\", "\\\"\"\"",
        "{", "}", "(", ")", "[", "]", "A", "on", "$x", ":", "=", "@d", "...", "1.5e3", "\u{FEFF}", "é",
    ]
    private let jsonTokens = [
        "{", "}", "[", "]", ",", ":", "\"query\"", "\"operationName\"", "\"variables\"", "\"extensions\"",
        "\"persistedQuery\"", "\"sha256Hash\"", "\"{ a }\"", "\"query Q { a }\"", "\"Q\"", "null", "true", "7", "\"",
    ]

    private func post(_ body: Data, contentType: String = "application/json") -> URLRequest {
        var request = URLRequest(url: GraphQLRequests.endpoint)
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return request
    }

    private func read(_ request: URLRequest) {
        do {
            for operation in try GraphQLOperation.operations(in: request) {
                _ = (operation.description, operation.persistedQueryHash)
            }
        } catch  where !(error is GraphQLFormatError || error is MultipartFormatError) {
            Issue.record("an error that is not documented: \(error)")
        } catch {}
    }

    @Test func randomBodiesAndDocuments() {
        var input = FuzzInput(seed: 42)
        for round in 0..<2_000 {
            read(post(round % 2 == 0 ? input.bytes(upTo: 120) : input.splice(jsonTokens, upTo: 30)))
            let document = String(decoding: input.splice(documentTokens, upTo: 30), as: UTF8.self)
            read(post(Data(JSONValue.object(["query": .string(document)]).description.utf8)))
            let upload = input.splice(
                ["--b", "\r\n", "Content-Disposition: form-data; name=\"operations\"", "{}"], upTo: 12)
            read(post(upload, contentType: "multipart/form-data; boundary=b"))
        }
    }

    @Test func randomQueryStrings() {
        var input = FuzzInput(seed: 9110)
        let tokens = [
            "query=", "variables=", "extensions=", "operationName=", "&", "=", "%", "%7B", "%22", "+", "{", "x",
        ]
        for round in 0..<2_000 {
            let query =
                round % 2 == 0
                ? String(decoding: input.bytes(upTo: 60), as: UTF8.self)
                : String(decoding: input.splice(tokens, upTo: 20), as: UTF8.self)
            var components = URLComponents(url: GraphQLRequests.endpoint, resolvingAgainstBaseURL: false)!
            components.query = query
            guard let url = components.url else { continue }
            read(URLRequest(url: url))
        }
    }

    @Test func randomAnswers() {
        var input = FuzzInput(seed: 8895)
        for _ in 0..<1_500 {
            let text = String(decoding: input.splice(jsonTokens, upTo: 12), as: UTF8.self)
            do {
                _ = try MockResponse.graphQL(data: text).validated()
                _ = try MockResponse.graphQLMultipart([text]).validated()
                _ = try MockResponse.graphQLEvents([text]).validated()
            } catch  where !(error is GraphQLFormatError) {
                Issue.record("an error that is not documented: \(error)")
            } catch {}
            _ = try? JSONValue(json: input.bytes(upTo: 40))
        }
    }
}
