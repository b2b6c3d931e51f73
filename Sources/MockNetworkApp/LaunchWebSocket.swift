import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// The request an app opens a WebSocket with: `url` as it is, unless the app was launched by a
    /// UI test with a `MockServer` (`app.launchEnvironment.mockNetwork(server:)`), when it goes to
    /// that server with `url` and the server's secret, and the test's socket handlers registered for
    /// `url` answer it. The app's one line:
    ///
    /// ```swift
    /// let task = URLSession(configuration: .default).webSocketTask(with: MockRegistry.webSocketRequest(url))
    /// ```
    ///
    /// `launched(…)`'s session forwards requests through a `URLProtocol`, which cannot carry a socket:
    /// this is the way a socket reaches the test. Open it on a session of the app's own, not the
    /// launched registry's (whose protocol class takes every request). The request goes to
    /// `ws://127.0.0.1`, which App Transport Security refuses unless the app's debug build has
    /// `NSAppTransportSecurity` → `NSAllowsLocalNetworking` = YES. Without the launch environment (a
    /// release build, a run outside UI tests) nothing changes.
    ///
    /// - Parameters:
    ///   - url: the socket's own URL, such as `wss://api.example.com/chat`.
    ///   - environment: where the launch environment is read; the process's by default.
    /// - Returns: the request to open the socket with.
    public static func webSocketRequest(
        _ url: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URLRequest {
        guard let settings = LaunchSettings(environment), let server = settings.server, let secret = settings.secret,
            let forwarder = try? LaunchForwarder(server: server, secret: secret)
        else { return URLRequest(url: url) }
        var request = forwarder.forwarded(URLRequest(url: url))
        request.url = request.url.flatMap(Self.socketScheme)
        return request
    }

    /// `url` with the socket scheme for its HTTP one (`ws` for `http`): the server's address.
    private static func socketScheme(_ url: URL) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        return components.url
    }
}
