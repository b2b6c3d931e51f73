import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the checks after the fact (`requests(matching:)`, `expect(_:count:)`, `nextRequest`) read a
/// recorded request. They differ from a lookup in one way: a GraphQL match looks inside a batch (a
/// JSON array of operations), since the question they answer is what the app sent, and a batch
/// sends each of its operations. A lookup never does (a batch no handler answers whole is answered
/// operation by operation, `RequestPath/GraphQLBatches.swift`), and nothing here runs on the
/// request path: a batch is read when a check runs.
extension RequestMatch {
    /// What a check after the fact makes of `recorded`: how many times this match describes it, and
    /// why not (one phrase per rule that fails) when that is none.
    ///
    /// One for a request it matches, none for one it does not; for a GraphQL match and a batch, the
    /// number of the batch's operations that fit the GraphQL rule, when the request passes the
    /// other rules (URL or endpoint, method, headers, body, predicates). A batch none of whose
    /// operations fits is described by the operation nearest to the rule.
    func checked(_ recorded: RecordedRequest) -> (count: Int, why: [String]) {
        let reading = BodyReading(recorded.request, body: recorded.body)
        guard let rule = graphQL, let batch = reading.batch else {
            let why = mismatches(recorded.request, url: recorded.url, body: recorded.body, reading: reading)
            return (why.isEmpty ? 1 : 0, why)
        }
        var outside = self
        outside.graphQL = nil
        let why = outside.mismatches(recorded.request, url: recorded.url, body: recorded.body, reading: reading)
        let inside = batch.map { Self.differences($0, rule) }
        let fitting = inside.filter(\.isEmpty).count
        if why.isEmpty, fitting > 0 { return (fitting, []) }
        guard fitting == 0, let nearest = inside.indices.min(by: { inside[$0].count < inside[$1].count }) else {
            return (0, why)
        }
        return (0, why + inside[nearest].map { "operation \(nearest + 1) of the batch: \($0)" })
    }
}
