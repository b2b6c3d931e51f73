import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reading a recorded request's body and query, for assertions after the fact.
extension RecordedRequest {
    /// The body as UTF-8 text (invalid bytes replaced).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body decoded from JSON into `type`.
    ///
    /// - Throws: ``MockNetworkError/undecodableBody(_:)`` saying what the body held and why it
    ///   did not decode.
    public func json<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            let reason: String
            switch error {
            case DecodingError.keyNotFound(let key, _): reason = "no key \"\(key.stringValue)\""
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
                DecodingError.dataCorrupted(let context):
                let path = context.codingPath.map(\.stringValue).joined(separator: ".")
                reason = context.debugDescription + (path.isEmpty ? "" : " (at \(path))")
            default: reason = "\(error)"
            }
            throw MockNetworkError.undecodableBody(
                "the body of \(method) \(MockRegistry.shortened(url.absoluteString)) is not a \(Value.self): "
                    + "\(reason). The body: \(MockRegistry.shortened(text)).")
        }
    }

    /// The query's items, in order, percent-decoded (`+` as a space).
    public var queryItems: [URLQueryItem] {
        RequestMatch.queryItems(of: url).map { URLQueryItem(name: $0.name, value: $0.value) }
    }

    /// The body's fields when it is a form (`application/x-www-form-urlencoded`, which a session
    /// sends a POST body as unless told otherwise), in order, percent-decoded (`+` as a space);
    /// empty for a body of another type (`application/json`, say) or none.
    public var formFields: [URLQueryItem] {
        guard
            request.value(forHTTPHeaderField: "Content-Type")?.lowercased()
                .hasPrefix("application/x-www-form-urlencoded") ?? false
        else { return [] }
        return text.split(separator: "&").compactMap { field in
            let pair = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in
                part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            guard let name = pair.first, !name.isEmpty else { return nil }
            return URLQueryItem(name: decode(name), value: pair.count > 1 ? decode(pair[1]) : "")
        }
    }

    /// The parts of a `multipart/form-data` or `multipart/mixed` body: each one's name, filename,
    /// content type, headers and bytes.
    ///
    /// - Throws: ``MultipartFormatError`` for a body of another type, or a malformed one, saying why.
    public var multipartParts: [MultipartPart] {
        get throws { try MultipartPart.parts(of: request, body: body) }
    }
}
