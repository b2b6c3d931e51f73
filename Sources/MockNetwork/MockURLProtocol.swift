import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from a ``MockRegistry``'s handlers.
///
/// Sessions made by a registry use a subclass of their own, so you rarely name this class.
/// The class itself serves the process-wide ``registry``, the classic style of the tutorials:
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [MockURLProtocol.self]
/// MockURLProtocol.registry.register("https://api.example.com/user") { _ in try .json("{}") }
/// ```
/// Prefer a registry per test: the process-wide one is shared by every test in the process.
public class MockURLProtocol: URLProtocol {
    /// The process-wide registry that sessions configured with `MockURLProtocol.self` are answered from.
    public static let registry = MockRegistry(protocolClass: MockURLProtocol.self)

    /// Takes every request, whatever its scheme: a request no handler matches fails instead of
    /// reaching the network.
    override public class func canInit(with request: URLRequest) -> Bool { true }

    /// The request as it is.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Answers the request from the registry this class routes to.
    override public func startLoading() {
        guard let registry = MockRegistry.registry(for: type(of: self)) else {
            fail(
                URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: the MockRegistry behind this session was released. "
                            + "Keep the registry alive for as long as you use its session."
                    ]))
            return
        }
        let body: Data
        do {
            body = try RequestBody.read(from: request, task: task)
        } catch {
            fail(error)
            return
        }
        var request = self.request
        if request.httpBodyStream != nil { request.httpBodyStream = nil }
        if !body.isEmpty { request.httpBody = body }
        switch registry.answer(request, body: body) {
        case .respond(let response, let data):
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if !data.isEmpty { client?.urlProtocol(self, didLoad: data) }
            client?.urlProtocolDidFinishLoading(self)
        case .fail(let error):
            fail(error)
        }
    }

    /// Nothing to stop: every answer is delivered inside `startLoading`.
    override public func stopLoading() {}

    private func fail(_ error: any Error) {
        client?.urlProtocol(self, didFailWithError: error)
    }
}
