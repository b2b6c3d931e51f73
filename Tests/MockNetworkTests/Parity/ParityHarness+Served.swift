import Foundation
import MockNetwork
import MockNetworkServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The parity suite's third column: the registry served over HTTP by `MockServer`, and a plain
// session (no protocol class) talking to it.

extension ParityHarness {
    /// A registry whose handlers answer `routes` (`"METHOD /target"`) at `base`, as the server does.
    static func registry(answering routes: [String: LoopbackServer.Response], at base: URL) -> MockRegistry {
        let mocks = MockRegistry()
        for (key, response) in routes {
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            let headers = Dictionary(response.headers, uniquingKeysWith: { first, _ in first })
            let body = response.body
            let status = response.status
            let delay = response.delay
            mocks.register(.url(base.absoluteString + parts[1]).method(parts[0])) { _ in
                try MockResponse(status: status, headers: headers, body: body).delayed(by: delay)
            }
        }
        return mocks
    }

    /// The scenario's client code with a plain session against a registry served over HTTP as the
    /// server's origin. URLs on the served registry's port are given on the server's, so the
    /// observations compare.
    static func observeServed(
        _ scenario: ParityScenario, as origin: URL, _ makeRecorder: @Sendable () -> ParityRecorder
    ) async throws -> Observation {
        let mocks = registry(answering: scenario.routes, at: origin)
        let server = try MockServer(serving: mocks, as: [origin.absoluteString])
        defer { server.stop() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        scenario.configure(configuration)
        var observation = try await observe(scenario, configuration: configuration, base: server.url, makeRecorder)
            .observation
        let onServer = { (url: String?) in
            url.map { $0.replacingOccurrences(of: server.url.absoluteString, with: origin.absoluteString) }
        }
        observation.responseURL = onServer(observation.responseURL)
        observation.currentRequestURL = onServer(observation.currentRequestURL)
        observation.received = mocks.requests.map { request in
            var target = request.url.path
            if target.isEmpty { target = "/" }
            if let query = request.url.query { target += "?" + query }
            let headers = Dictionary(
                request.headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
            return describeReceived(
                method: request.method, target: target, headers: headers, body: request.body, defaults: true)
        }
        _ = mocks.takeFailures()
        return observation
    }
}
