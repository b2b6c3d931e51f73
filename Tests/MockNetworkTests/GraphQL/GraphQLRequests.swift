import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests shaped as GraphQL clients send them, for the GraphQL tests.
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

    /// A `POST` as Apollo iOS 1.25 sends it (`JSONRequest`, `HTTPRequest`): `Content-Type`, `Accept`,
    /// the operation's name and type, the client's name and version, and the body's keys sorted, as
    /// its `JSONSerialization.sortedData` writes them.
    static func apollo(name: String, type: String, body: String, extraHeaders: [String: String] = [:]) -> URLRequest {
        post(body, headers: apolloHeaders(name: name, type: type).merging(extraHeaders) { $1 })
    }

    static func apolloHeaders(name: String, type: String) -> [String: String] {
        [
            "Content-Type": "application/json",
            "Accept": "multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json",
            "X-APOLLO-OPERATION-NAME": name,
            "X-APOLLO-OPERATION-TYPE": type,
            "apollographql-client-name": "com.example.app-apollo-ios",
            "apollographql-client-version": "1.0-1",
        ]
    }

    /// A `GET` whose URL has `items` as its query, encoded as Apollo iOS's `GraphQLGETTransformer`
    /// encodes them: sorted by name, through `URLComponents`, then `+` as `%2B`.
    static func apolloGET(_ items: [(String, String)], headers: [String: String]) -> URLRequest {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = items.sorted { $0.0 < $1.0 }.map { URLQueryItem(name: $0.0, value: $0.1) }
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        var request = URLRequest(url: components.url!)
        for (name, value) in headers where name != "Content-Type" { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static let clientLibrary = #""clientLibrary":{"name":"apollo-ios","version":"1.25.0"}"#
    static let getUserDocument = "query GetUser($id: ID!) { user(id: $id) { __typename id name } }"
    static let getUserHash = "3b9e6f0b0d2b4b2ac6b1a3a0f5e4b1b3a5f6e2c1d0b9a8f7e6d5c4b3a2f1e0d9"
}
