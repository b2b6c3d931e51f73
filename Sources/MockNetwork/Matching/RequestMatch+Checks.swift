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
        guard let rule = content, let inside = rule.counted(reading) else {
            let why = mismatches(recorded.request, url: recorded.url, body: recorded.body, reading: reading)
            return (why.isEmpty ? 1 : 0, why)
        }
        var outside = self
        outside.content = nil
        let why = outside.mismatches(recorded.request, url: recorded.url, body: recorded.body, reading: reading)
        if why.isEmpty, inside.fitting > 0 { return (inside.fitting, []) }
        return (0, inside.fitting == 0 ? why + inside.nearest : why)
    }
}
