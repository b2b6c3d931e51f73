import Foundation
import MockNetwork

extension MockServer {
    /// What puts this server into an app's launch environment, so that the app forwards every request
    /// to it: the server's URL (`MOCKNETWORK_SERVER`) and its secret (`MOCKNETWORK_SERVER_SECRET`),
    /// random for each server, which only requests from an app launched with it carry.
    ///
    /// The app's `MockRegistry.launched(…)` reads them; the test's handlers then answer the app's
    /// requests as they are (their original URLs), live. A UI test writes them with
    /// `app.launchEnvironment.mockNetwork(server: server)`.
    public var launchEnvironment: [String: String] {
        [Self.serverVariable: url.absoluteString, Self.secretVariable: secret]
    }

    /// Where the app finds the server, as MockNetworkApp's `MockRegistry.launched(…)` reads it.
    package static let serverVariable = "MOCKNETWORK_SERVER"
    /// Where the app finds the server's secret.
    package static let secretVariable = "MOCKNETWORK_SERVER_SECRET"

    /// A new server's secret: 32 bytes from the system's random source, in hex.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
        }.joined()
    }
}

extension Dictionary where Key == String, Value == String {
    /// Asks the app launched with this environment to send every request to `server`, whose registry's
    /// handlers answer it, live: the UI test registers, changes, holds and awaits requests as a unit
    /// test does, while the app runs.
    ///
    /// ```swift
    /// let server = try MockServer(serving: mocks)
    /// app.launchEnvironment.mockNetwork(server: server)
    /// app.launch()
    /// ```
    ///
    /// Keep the server running while the app runs. It listens on 127.0.0.1 of the machine the UI test
    /// runs on, where the app runs too: the Mac for the Simulator, the device for a device. Beside `mockNetwork(scenario:)` or
    /// `mockNetwork(archive:)` (MockNetworkApp), their stubs and entries answer first, the server
    /// the rest.
    ///
    /// - Parameter server: the test's server; its ``MockServer/launchEnvironment`` is added here.
    public mutating func mockNetwork(server: MockServer) {
        merge(server.launchEnvironment) { _, new in new }
    }
}
