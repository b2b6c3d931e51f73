import Foundation
import MockNetworkServer
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs blocking work (a raw socket's reads) on a Dispatch thread instead of the test's task, so a
/// watchdog around it keeps a thread to run on.
func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

/// A session that talks to the network itself: no protocol classes, no cache, no cookies kept.
func plainSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.protocolClasses = []
    configuration.timeoutIntervalForRequest = 10
    return URLSession(configuration: configuration)
}

/// The answer to `request` from a plain session, its body as text.
func fetchText(_ request: URLRequest) async throws -> (HTTPURLResponse, String) {
    let session = plainSession()
    defer { session.finishTasksAndInvalidate() }
    let (data, response) = try await session.data(for: request)
    return (try XCTUnwrap(response as? HTTPURLResponse), String(decoding: data, as: UTF8.self))
}

/// A responder that answers with what it was asked: the method, target and body, and a field for
/// each request field that starts with `X-`.
let echo = ClosureResponder { request, writer in
    var headers: HTTPHeaders = ["X-Method": request.method, "X-Target": request.target, "X-Peer": "\(request.peer)"]
    for field in request.headers where field.name.lowercased().hasPrefix("x-") {
        headers.add("X-Echo-\(field.name.dropFirst(2))", field.value)
    }
    writer.respond(status: 200, headers: headers, body: request.body)
}

extension HTTPServer {
    /// A URL on this server.
    func url(_ path: String) -> URL { URL(string: path, relativeTo: baseURL)!.absoluteURL }
}
