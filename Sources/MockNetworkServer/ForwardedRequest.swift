import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request an app launched by a UI test forwarded (`MockRegistry.launched` with the server in its
/// environment): it carries the URL the app asked for, the names of the fields the app's request had,
/// and the server's secret. Its handlers see the app's request: that URL, those fields, its method
/// and body; never the forwarding's own fields.
struct ForwardedRequest {
    /// The URL the app asked for.
    let url: URL
    /// The fields the app's request carried, lowercased.
    let fields: Set<String>

    enum Reading {
        /// A request with no field of the forwarding: answered on the origins the server serves as.
        case plain
        case forwarded(ForwardedRequest)
        /// Forwarding fields with a wrong secret, none, or no URL: why, for the answer and the test.
        case refused(String)
    }

    /// What `request` is, for a server whose secret is `secret`.
    static func read(_ request: HTTPServerRequest, secret: String) -> Reading {
        let given = request.headers[ForwardingFields.secret]
        let url = request.headers[ForwardingFields.url]
        guard given != nil || url != nil else { return .plain }
        let method = request.method
        let shown = url ?? request.target
        guard let given, matches(given, secret) else {
            return .refused(
                "MockServer: refused \(method) \(shown), forwarded by an app "
                    + (given == nil ? "without the server's secret" : "with a secret that is not this server's")
                    + " (\(ForwardingFields.secret)); no handler ran. The app was launched for another "
                    + "MockServer (an earlier test's, whose port this one reuses), or its launch environment "
                    + "was written by hand. Fix: launch the app after "
                    + "app.launchEnvironment.mockNetwork(server: server) with this test's server, and end it "
                    + "before the test ends.")
        }
        guard let url, let parsed = URL(string: url), parsed.scheme != nil, parsed.host != nil else {
            return .refused(
                "MockServer: refused \(method) \(request.target), forwarded with the server's secret but without "
                    + "a full URL in \(ForwardingFields.url) (\(url.map { "\"\($0)\"" } ?? "none")); no handler ran. "
                    + "Fix: forward requests with MockRegistry.launched(…), which sends the app's own URL.")
        }
        let names = request.headers[ForwardingFields.fields]?.split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        return .forwarded(ForwardedRequest(url: parsed, fields: Set(names ?? []).subtracting(ForwardingFields.all)))
    }

    /// Whether `given` is `secret`, in a time that does not depend on where they differ.
    private static func matches(_ given: String, _ secret: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(secret.utf8))
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The request the handlers see: the app's URL, method, fields and body.
    func urlRequest(for request: HTTPServerRequest) -> URLRequest {
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for field in request.headers where fields.contains(field.name.lowercased()) {
            urlRequest.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if !request.body.isEmpty { urlRequest.httpBody = request.body }
        return urlRequest
    }
}
