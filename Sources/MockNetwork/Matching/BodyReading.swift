import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request's body as the rules read it: parsed once, when a rule first asks, however many routes
/// look. Lives for one lookup, on one thread; what products read (``ContentKind``) is kept in
/// ``cache``, which the next lookup of the same request, and its handler, start from.
package final class BodyReading {
    package let request: URLRequest
    package let body: Data
    /// What products read of the body, by the type they read it into.
    package private(set) var cache: [ObjectIdentifier: any Sendable]

    /// `cache`: what an earlier lookup of the same request read, when there was one.
    package init(_ request: URLRequest, body: Data, cache: [ObjectIdentifier: any Sendable] = [:]) {
        self.request = request
        self.body = body
        self.cache = cache
    }

    /// The largest body a lookup reads on Foundation's queue (inside `startLoading`): a larger one is
    /// read where handlers run, so a large body never holds the queue every session shares.
    static let inlineLimit = 64 * 1024

    /// What `make` reads of the body, read once however many rules ask.
    package func read<Value: Sendable>(_ key: Value.Type, _ make: (URLRequest, Data) -> Value) -> Value {
        if let value = cache[ObjectIdentifier(key)] as? Value { return value }
        let value = make(request, body)
        cache[ObjectIdentifier(key)] = value
        return value
    }

    /// The body as `.jsonBody` compares it, read once however many routes ask; `nil` when it is not JSON.
    var json: JSONValue? {
        if let jsonRead { return jsonRead }
        let read = try? JSONValue(json: body)
        jsonRead = .some(read)
        return read
    }

    private var jsonRead: JSONValue??

    private(set) lazy var parts: Result<[MultipartPart], any Error> = Result {
        try MultipartPart.parts(of: request, body: body)
    }
}
