import Foundation

/// One part of a multipart body: an uploaded file or a form field of a `multipart/form-data`
/// request (RFC 7578), or one piece of a `multipart/mixed` answer (RFC 2046).
///
/// ```swift
/// mocks.register("https://api.example.com/avatar", method: "POST") { request in
///     let parts = try MultipartPart.parts(of: request)
///     let avatar = try XCTUnwrap(parts.first { $0.name == "avatar" })
///     XCTAssertEqual(avatar.filename, "me.png")
///     XCTAssertEqual(avatar.contentType, "image/png")
///     return .status(204)
/// }
/// ```
public struct MultipartPart: Sendable, Hashable {
    /// The part's header fields, names as they were written; a field given twice holds its values
    /// joined with `, `.
    public var headers: [String: String]
    /// The part's body, the bytes between the blank line after its header fields and the next boundary.
    public var body: Data

    /// A part with the given header fields and body, for writing a multipart body.
    public init(headers: [String: String] = [:], body: Data) {
        self.headers = headers
        self.body = body
    }

    /// The value of a header field, its name compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The form field's name: `name` of the `Content-Disposition` field
    /// (`form-data; name="avatar"; filename="me.png"`); `nil` when the part names none.
    public var name: String? { disposition?.parameters["name"] }

    /// The uploaded file's name: `filename*` of the `Content-Disposition` field, decoded (RFC 8187),
    /// else its `filename`; `nil` for a part that is no file.
    public var filename: String? {
        guard let parameters = disposition?.parameters else { return nil }
        if let extended = parameters["filename*"], let name = Self.decodedExtendedValue(extended) {
            return name
        }
        return parameters["filename"]
    }

    /// The part's `Content-Type`, as it was written (`image/png`, `text/plain;charset=UTF-8`); `nil`
    /// when the part names none, which RFC 7578 reads as `text/plain`.
    public var contentType: String? { header("Content-Type") }

    /// The body as UTF-8 text, or `nil` when it is not valid UTF-8 (a binary file).
    public var text: String? { String(data: body, encoding: .utf8) }

    /// The body decoded from JSON into `type` (``JSONValue`` reads any JSON).
    ///
    /// - Throws: ``MockNetworkError/undecodableBody(_:)`` saying which part did not decode, and why.
    public func json<Value: Decodable>(_ type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws -> Value {
        do {
            return try decoder.decode(type, from: body)
        } catch {
            let part = name.map { "the part \"\($0)\"" } ?? "the part"
            throw MockNetworkError.undecodableBody(
                "\(part) is not a \(Value.self): \(JSONValue.reason(error)). Its body: "
                    + "\(MockRegistry.shortened(String(decoding: body, as: UTF8.self))).")
        }
    }

    private var disposition: HeaderValue? { header("Content-Disposition").map(HeaderValue.init) }

    /// An RFC 8187 value in UTF-8 (the charset every reader knows), `UTF-8''na%C3%AFve.txt`: the
    /// charset, an optional language, and the percent-encoded text.
    private static func decodedExtendedValue(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, pieces[0].lowercased() == "utf-8" else { return nil }
        return pieces[2].removingPercentEncoding
    }
}
