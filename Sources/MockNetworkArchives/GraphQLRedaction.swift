import Foundation
import MockNetwork
import MockNetworkGraphQL

/// Redaction of a GraphQL `GET`'s variables: GraphQL over HTTP sends `variables` and `extensions` as
/// JSON in query items, where ``HTTPArchive/Redaction/jsonKeys`` reach them as they reach a body.
extension HTTPArchive {
    /// `url` with the members named one of `keys` (at any depth) in the JSON of its `variables` and
    /// `extensions` query items replaced by `replacement`, and the strings they held; `nil` when it
    /// has no such item or nothing in them to redact.
    static func redactingGraphQLQuery(_ url: String, keys: Set<String>, replacement: String)
        -> (url: String, removed: [String])?
    {
        guard url.contains("variables=") || url.contains("extensions="),
            var components = URLText.components(url), let query = components.percentEncodedQuery
        else { return nil }
        var removed: [String] = []
        var changed = false
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, ["variables", "extensions"].contains(pair[0]),
                let text = pair[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding,
                let (data, found) = JSONRedaction.redact(Data(text.utf8), keys: keys, replacement: replacement),
                data != Data(text.utf8),
                let encoded = String(decoding: data, as: UTF8.self).addingPercentEncoding(
                    withAllowedCharacters: queryValueAllowed)
            else { return String(item) }
            removed += found
            changed = true
            return "\(pair[0])=\(encoded)"
        }
        guard changed else { return nil }
        components.percentEncodedQuery = items.joined(separator: "&")
        return components.string.map { ($0, removed) }
    }

    /// What a query item's value may hold unencoded: not `&`, `=`, `+` or `#`, which would end or
    /// change it.
    private static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))
}
