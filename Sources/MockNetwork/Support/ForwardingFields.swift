/// The header fields between an app that forwards its requests (``LaunchForwarder``) and the UI
/// test's `MockServer`, which strips them before a handler or the request log sees the request.
///
/// `package`: MockNetworkApp writes them and MockNetworkServer reads them; both depend on the core alone.
package enum ForwardingFields {
    /// The URL the app asked for: the handlers see this one, not the server's.
    package static let url = "MockNetwork-Forwarded-URL"
    /// The server's secret, from the launch environment: the server answers forwarded requests that
    /// carry its own only.
    package static let secret = "MockNetwork-Forwarding-Secret"
    /// The names of the fields the app's request carried, comma-separated: the server keeps these
    /// (and drops those the forwarding session added, such as `Accept-Encoding` or `User-Agent`).
    package static let fields = "MockNetwork-Forwarded-Fields"
    /// On an answer to a forwarded request: why it is not the handler's answer. `unmatched` (no handler
    /// matched; the body is the report), `refused` (a wrong secret; the body says so), or
    /// `error <domain> <code>` (the handler threw; the body is the error's description).
    package static let failure = "MockNetwork-Failure"

    /// Every field of the forwarding, lowercased.
    package static let all: Set<String> = [url.lowercased(), secret.lowercased(), fields.lowercased()]
}
