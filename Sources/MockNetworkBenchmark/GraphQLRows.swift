// Rows 3g and 3h: a GraphQL operation found among 1,000 registered operations, against the same
// POST answered by an exact URL, in interleaved rounds.

import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Rows 3g and 3h.
func graphQLRows(requests: Int, rounds: Int) async throws {
    let (operations, request) = try graphQLSetup(operations: true)
    let (exact, _) = try graphQLSetup(operations: false)
    func post(_ session: URLSession, times: Int) async throws {
        for _ in 0..<times {
            let (data, _) = try await session.data(for: request)
            guard data.count == 2 else { throw BenchmarkError(description: "unexpected body of \(data.count) bytes") }
        }
    }
    let sessions = [operations.session, exact.session]
    for session in sessions { try await post(session, times: 500) }
    var perRound: [[Double]] = [[], []]
    for round in 0..<rounds {
        for offset in 0..<2 {
            let row = (round + offset) % 2
            let time = try await seconds { try await post(sessions[row], times: requests / rounds) }
            perRound[row].append(time / Double(requests / rounds) * 1e6)
        }
    }
    await report("3g 1,000 GraphQL operations, the last answers", median(perRound[0]))
    await report("3h the same POST, an exact URL answers", median(perRound[1]))
}

/// Row 3g's registry (1,000 operations at the endpoint, the last answering) or row 3h's (the same
/// POST answered by its exact URL), and the request both rows send.
func graphQLSetup(operations: Bool) throws -> (MockRegistry, URLRequest) {
    let endpoint = "https://api.example.com/graphql"
    let okay = MockResponse.text("ok")
    let registry = MockRegistry()
    if operations {
        for index in 0..<1_000 {
            registry.register(.graphQL("Op\(index)").at(endpoint), answer: okay)
        }
    } else {
        registry.register(.url(endpoint), method: "POST", answer: okay)
    }
    guard let url = URL(string: endpoint) else { throw BenchmarkError(description: "no GraphQL URL") }
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"operationName":"Op999","query":"query Op999 { a }","variables":{"id":7}}"#.utf8)
    return (registry, request)
}
