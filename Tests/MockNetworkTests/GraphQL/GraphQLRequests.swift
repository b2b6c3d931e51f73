import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests shaped as GraphQL clients send them, for the GraphQL tests.
///
/// The Apollo shapes are what Apollo iOS 1.25.7 sent, captured on Linux on 26 November 2026: the
/// real client (its Linux build needed `FoundationNetworking` imports and a few other fixes, none in
/// the code that builds requests) sent `GetUser` and `AddUser` below to a capture server on
/// 127.0.0.1, under each combination of `autoPersistQueries`, `useGETForQueries` and
/// `useGETForPersistedQueryRetry`. What it sent:
/// - A `POST`'s body is JSON with its keys sorted: `extensions` (`clientLibrary`, and with automatic
///   persisted queries `persistedQuery`), `operationName`, `query` (left out when the hash is sent
///   alone), `variables`. A variable of type `ID!` is a string: `{"id":"7"}`.
/// - Every request, persisted or not, has `X-APOLLO-OPERATION-ID` (the operation's identifier, which
///   the captured operations carried as codegen writes it: the sha256 of the document, in hex),
///   `X-APOLLO-OPERATION-NAME` and `-TYPE`, `Accept`, and the client's name and version; a `POST` has
///   `Content-Type: application/json`.
/// - The client's name and version come from the app's bundle on iOS (`<bundle id>-apollo-ios`,
///   `<short version>+<build>`); with no bundle, as on Linux, they are `apollo-ios-client` and
///   `(unknown)`. The helpers send the iOS form.
/// - A persisted query sends the hash alone, then, after `PersistedQueryNotFound`, the hash with the
///   document: `POST` then `POST` by default; `GET` then `GET` with `useGETForPersistedQueryRetry`
///   (with or without `useGETForQueries`); `GET` then `POST` with `useGETForQueries` alone. A
///   mutation is `POST` then `POST` whatever the flags.
enum GraphQLRequests {
    static let endpoint = URL(string: "https://api.example.com/graphql")!

    /// A `POST` with `body` as its JSON.
    static func post(_ body: String, headers: [String: String] = ["Content-Type": "application/json"]) -> URLRequest {
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body.utf8)
        return request
    }

    /// A `POST` as Apollo iOS 1.25.7 sends it: ``apolloHeaders(name:type:operationID:)`` and `body`
    /// (give its keys sorted, as Apollo writes them).
    static func apollo(name: String, type: String, operationID: String, body: String) -> URLRequest {
        post(body, headers: apolloHeaders(name: name, type: type, operationID: operationID))
    }

    /// The headers Apollo iOS 1.25.7 sends with an operation named `name` of type `type`
    /// (`query`, `mutation`) whose identifier is `operationID`, the sha256 of its document; a `GET`
    /// leaves out `Content-Type`.
    static func apolloHeaders(name: String, type: String, operationID: String) -> [String: String] {
        [
            "Content-Type": "application/json",
            "Accept": "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json",
            "X-APOLLO-OPERATION-ID": operationID,
            "X-APOLLO-OPERATION-NAME": name,
            "X-APOLLO-OPERATION-TYPE": type,
            "apollographql-client-name": "com.example.app-apollo-ios",
            "apollographql-client-version": "1.0+1",
        ]
    }

    /// A `GET` whose URL has `items` as its query, encoded as Apollo iOS's `GraphQLGETTransformer`
    /// encodes them: sorted by name, through `URLComponents`, then `+` as `%2B` and `;` as `%3B`.
    static func apolloGET(_ items: [(String, String)], headers: [String: String]) -> URLRequest {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = items.sorted { $0.0 < $1.0 }.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?
            .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: ";", with: "%3B")
        var request = URLRequest(url: components.url!)
        for (name, value) in headers where name != "Content-Type" { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// The `clientLibrary` member of the `extensions` Apollo iOS 1.25.7 sends.
    static let clientLibrary = #""clientLibrary":{"name":"apollo-ios","version":"1.25.7"}"#

    /// The `persistedQuery` member of the `extensions` Apollo iOS sends for the document whose sha256
    /// is `hash`.
    static func persistedQuery(_ hash: String) -> String {
        #""persistedQuery":{"sha256Hash":"\#(hash)","version":1}"#
    }

    /// The captured query; `$id` is an `ID!`, sent as a string.
    static let getUserDocument = "query GetUser($id: ID!) { user(id: $id) { __typename id name } }"
    /// The sha256 of ``getUserDocument``, as Apollo sent it.
    static let getUserHash = "62d075224fff90155d1d442362fc6637115ecbe3c643784f8fb25633f50c9283"
    /// The captured mutation.
    static let addUserDocument = "mutation AddUser($name: String!) { addUser(name: $name) { __typename id } }"
    /// The sha256 of ``addUserDocument``, as Apollo sent it.
    static let addUserHash = "186236d08cd4e90fa335b0ce39653aff0a50a3735ee7b2ac6c6cc398940fbfcd"
}
