import Foundation

/// What names the requests a handler answers: a ``RequestMatch``, or a URL as a `String` or a `URL`,
/// literal or value, which names the match `.url(_:)` makes of it. `register` takes any of them, so
/// the tutorials' handler per URL keeps its shape:
///
/// ```swift
/// let userURL = URL(string: "https://api.example.com/user")!
/// mocks.register(userURL) { _ in .json(#"{"name": "Ada"}"#) }
/// mocks.register("https://api.example.com/users/{id}") { _, parameters in .text(parameters["id"]!) }
/// mocks.register(.url(userURL).method("DELETE")) { _ in .status(204) }
/// ```
public protocol RequestMatchConvertible: Sendable {
    /// The match this value names.
    var requestMatch: RequestMatch { get }
}

extension RequestMatch: RequestMatchConvertible {
    /// This match.
    public var requestMatch: RequestMatch { self }

    /// A URL as `url(_:query:)` takes it: a `String` (or `Substring`) or a `URL`.
    public protocol URLValue: Sendable {
        /// The URL's text, as `URL(string:)` reads it.
        var urlText: String { get }
    }
}

extension String: RequestMatchConvertible, RequestMatch.URLValue {
    /// The match of this URL, as `.url(_:)` makes it: exactly this URL, or a template when its path
    /// holds `{name}`.
    public var requestMatch: RequestMatch { .url(self) }
    /// This text.
    public var urlText: String { self }
}

extension Substring: RequestMatchConvertible, RequestMatch.URLValue {
    /// The match of this URL, as `.url(_:)` makes it.
    public var requestMatch: RequestMatch { .url(self) }
    /// This text.
    public var urlText: String { String(self) }
}

extension URL: RequestMatchConvertible, RequestMatch.URLValue {
    /// The match of exactly this URL, as `.url(_:)` makes it.
    public var requestMatch: RequestMatch { .url(self) }
    /// The URL's absolute string (so that a relative URL is reported as its text would be).
    public var urlText: String { absoluteString }
}

// The builders of a match are declared here, once, where `register` (which takes any
// `RequestMatchConvertible`) finds them as it finds `RequestMatch`'s: `register(.url(…).method(…))`.
// Declared on `RequestMatch` as well, or with two `url`s, a chain after `.url(…)` would not compile.
extension RequestMatchConvertible where Self == RequestMatch {
    /// Requests for `url`, a `String` or a `URL`; `query` says how its query must match.
    ///
    /// A path with `{name}` segments is a template: `"https://api.example.com/v1/users/{id}"`
    /// matches `/v1/users/42`, and a handler that takes `(request, parameters)` reads
    /// `parameters["id"]` (`"42"`, percent-decoded). `{name}` matches one whole, non-empty segment
    /// and never a `/`; a last segment `{name*}` matches the rest of the path. A template's query
    /// items must be present, others may be too; `query` does not apply to it. A literal segment
    /// outranks a parameter, and a template outranks a host pattern.
    public static func url(_ url: some RequestMatch.URLValue, query: RequestMatch.Query = .exact) -> RequestMatch {
        RequestMatch.matching(url: url.urlText, query: query)
    }

    /// Requests to any host matching `host`, and when given, a path matching `path`. In both,
    /// `*` stands for any run of characters: `"*.example.com"`, `"/v1/users/*"`. Any scheme and query.
    /// A `path` with `{name}` segments is a template, as for a URL (see `url(_:query:)`): `"/v1/users/{id}"`.
    public static func host(_ host: String, path: String? = nil) -> RequestMatch {
        RequestMatch.matching(host: host, path: path)
    }
}
