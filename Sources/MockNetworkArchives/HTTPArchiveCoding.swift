import Foundation
import MockNetwork

// HAR 1.2 as JSON. Decoding is lenient: only what an answer needs is required (a request's
// method and URL, a response's status), everything else has a default, and fields MockNetwork
// does not use are ignored, so browsers' archives load as they are. Encoding writes every field
// HAR 1.2 requires, so that browsers open what MockNetwork writes.

extension HTTPArchive {
    /// The file's top level: `{"log": {…}}`.
    struct Document: Codable {
        var log: HTTPArchive
    }

    /// Who wrote an archive; HAR requires it.
    static let creator = ["name": "MockNetwork", "version": "1.0"]
}

private struct HARKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension KeyedDecodingContainer where K == HARKey {
    fileprivate func optional<T: Decodable>(_ name: String, _ type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(T.self, forKey: HARKey(name))
    }

    fileprivate func required<T: Decodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
        try decode(T.self, forKey: HARKey(name))
    }

    /// A number that some tools write as text.
    fileprivate func number(_ name: String) throws -> Double? {
        if let text = try? decodeIfPresent(String.self, forKey: HARKey(name)) { return Double(text) }
        return try decodeIfPresent(Double.self, forKey: HARKey(name))
    }
}

extension HTTPArchive: Codable {
    /// Reads the `log` object of an archive.
    public init(from decoder: any Decoder) throws {
        let log = try decoder.container(keyedBy: HARKey.self)
        self.init(entries: try log.optional("entries") ?? [])
    }

    /// Writes the `log` object of an archive.
    public func encode(to encoder: any Encoder) throws {
        var log = encoder.container(keyedBy: HARKey.self)
        try log.encode("1.2", forKey: HARKey("version"))
        try log.encode(Self.creator, forKey: HARKey("creator"))
        try log.encode(entries, forKey: HARKey("entries"))
    }
}

extension HTTPArchive.Entry: Codable {
    /// Reads an entry.
    public init(from decoder: any Decoder) throws {
        let entry = try decoder.container(keyedBy: HARKey.self)
        startedDateTime = try entry.optional("startedDateTime") ?? ""
        time = try entry.number("time") ?? 0
        request = try entry.required("request")
        response = try entry.required("response")
        // Chrome writes it inside `response` (`net::ERR_BLOCKED_BY_CLIENT`); other tools beside it.
        let inResponse = try entry.nestedContainer(keyedBy: HARKey.self, forKey: HARKey("response"))
        error = try entry.optional("_error") ?? inResponse.optional("_error")
        webSocketMessages = try entry.optional("_webSocketMessages")
    }

    /// Writes an entry, with the empty `cache` and the `timings` HAR requires.
    public func encode(to encoder: any Encoder) throws {
        var entry = encoder.container(keyedBy: HARKey.self)
        try entry.encode(startedDateTime, forKey: HARKey("startedDateTime"))
        try entry.encode(time, forKey: HARKey("time"))
        try entry.encode(request, forKey: HARKey("request"))
        try entry.encode(response, forKey: HARKey("response"))
        try entry.encode([String: String](), forKey: HARKey("cache"))
        try entry.encode(["send": 0, "wait": time, "receive": 0], forKey: HARKey("timings"))
        try entry.encodeIfPresent(error, forKey: HARKey("_error"))
        try entry.encodeIfPresent(webSocketMessages, forKey: HARKey("_webSocketMessages"))
    }
}

extension HTTPArchive.Request: Codable {
    /// Reads a request.
    public init(from decoder: any Decoder) throws {
        let request = try decoder.container(keyedBy: HARKey.self)
        method = try request.required("method")
        url = try request.required("url")
        httpVersion = try request.optional("httpVersion") ?? "HTTP/1.1"
        headers = try request.optional("headers") ?? []
        body = try request.optional("postData", HTTPArchive.PostData.self)?.body
    }

    /// Writes a request, with the query and sizes HAR requires.
    public func encode(to encoder: any Encoder) throws {
        var request = encoder.container(keyedBy: HARKey.self)
        try request.encode(method, forKey: HARKey("method"))
        try request.encode(url, forKey: HARKey("url"))
        try request.encode(httpVersion, forKey: HARKey("httpVersion"))
        try request.encode([String](), forKey: HARKey("cookies"))
        try request.encode(headers, forKey: HARKey("headers"))
        let query = URLText.components(url)?.queryItems ?? []
        try request.encode(
            query.map { HTTPArchive.Header($0.name, $0.value ?? "") }, forKey: HARKey("queryString"))
        try request.encodeIfPresent(body.map(HTTPArchive.PostData.init), forKey: HARKey("postData"))
        try request.encode(-1, forKey: HARKey("headersSize"))
        try request.encode(body?.data.count ?? 0, forKey: HARKey("bodySize"))
    }
}

extension HTTPArchive.Response: Codable {
    /// Reads a response.
    public init(from decoder: any Decoder) throws {
        let response = try decoder.container(keyedBy: HARKey.self)
        // A whole number: 200.5 is no status (JSONDecoder's own message would not say where it is).
        let number: Double = try response.required("status")
        guard number.rounded() == number, abs(number) < 1_000_000 else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: response.codingPath + [HARKey("status")],
                    debugDescription: "expected a whole number, found \(number)"))
        }
        status = Int(number)
        statusText = try response.optional("statusText") ?? ""
        httpVersion = try response.optional("httpVersion") ?? "HTTP/1.1"
        headers = try response.optional("headers") ?? []
        body = try response.optional("content", HTTPArchive.Content.self)?.body ?? HTTPArchive.Body(Data())
    }

    /// Writes a response, with the `redirectURL` and sizes HAR requires.
    public func encode(to encoder: any Encoder) throws {
        var response = encoder.container(keyedBy: HARKey.self)
        try response.encode(status, forKey: HARKey("status"))
        try response.encode(statusText, forKey: HARKey("statusText"))
        try response.encode(httpVersion, forKey: HARKey("httpVersion"))
        try response.encode([String](), forKey: HARKey("cookies"))
        try response.encode(headers, forKey: HARKey("headers"))
        try response.encode(HTTPArchive.Content(body), forKey: HARKey("content"))
        let location = headers.last { $0.name.caseInsensitiveCompare("Location") == .orderedSame }?.value
        try response.encode(location ?? "", forKey: HARKey("redirectURL"))
        try response.encode(-1, forKey: HARKey("headersSize"))
        try response.encode(body.data.count, forKey: HARKey("bodySize"))
    }
}

extension HTTPArchive.Header: Codable {
    /// Reads a `{"name", "value"}` pair.
    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: HARKey.self)
        self.init(try header.required("name"), try header.optional("value") ?? "")
    }

    /// Writes a `{"name", "value"}` pair.
    public func encode(to encoder: any Encoder) throws {
        var header = encoder.container(keyedBy: HARKey.self)
        try header.encode(name, forKey: HARKey("name"))
        try header.encode(value, forKey: HARKey("value"))
    }
}

extension HTTPArchive {
    /// A body's text in the file: UTF-8 as it is, anything else in base64 with an `encoding`.
    fileprivate static func bodyText(_ data: Data) -> (text: String, encoding: String?) {
        if let text = String(data: data, encoding: .utf8) { return (text, nil) }
        return (data.base64EncodedString(), "base64")
    }

    fileprivate static func bodyData(
        text: String?, encoding: String?, in container: KeyedDecodingContainer<HARKey>, field: String
    ) throws -> Data {
        guard let text else { return Data() }
        switch encoding?.lowercased() {
        case nil, "", "utf-8", "utf8":
            return Data(text.utf8)
        case "base64":
            // Some tools wrap base64 in lines.
            let joined = text.filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: joined) else {
                throw DecodingError.dataCorruptedError(
                    forKey: HARKey(field), in: container,
                    debugDescription: "\"encoding\" is base64, but the text is not valid base64")
            }
            return data
        case let other?:
            throw DecodingError.dataCorruptedError(
                forKey: HARKey("encoding"), in: container,
                debugDescription: "the encoding \"\(other)\" is not one MockNetwork reads (base64, or none for text)")
        }
    }

    /// A request's `postData`. HAR gives it no `encoding`; MockNetwork writes `_encoding: base64`
    /// for a body that is not UTF-8, and reads `encoding` too.
    fileprivate struct PostData: Codable {
        var body: HTTPArchive.Body

        init(_ body: HTTPArchive.Body) { self.body = body }

        init(from decoder: any Decoder) throws {
            let post = try decoder.container(keyedBy: HARKey.self)
            let encoding: String? = try post.optional("_encoding") ?? post.optional("encoding")
            var data = try HTTPArchive.bodyData(
                text: post.optional("text"), encoding: encoding, in: post, field: "text")
            if data.isEmpty, let params: [HTTPArchive.Header] = try post.optional("params"), !params.isEmpty {
                // A form whose tool gave only its fields.
                var form = URLComponents()
                form.queryItems = params.map { URLQueryItem(name: $0.name, value: $0.value) }
                data = Data((form.percentEncodedQuery ?? "").utf8)
            }
            body = HTTPArchive.Body(data, mimeType: try post.optional("mimeType") ?? "")
        }

        func encode(to encoder: any Encoder) throws {
            var post = encoder.container(keyedBy: HARKey.self)
            let (text, encoding) = HTTPArchive.bodyText(body.data)
            try post.encode(body.mimeType, forKey: HARKey("mimeType"))
            try post.encode(text, forKey: HARKey("text"))
            try post.encodeIfPresent(encoding, forKey: HARKey("_encoding"))
        }
    }

    /// A response's `content`.
    fileprivate struct Content: Codable {
        var body: HTTPArchive.Body

        init(_ body: HTTPArchive.Body) { self.body = body }

        init(from decoder: any Decoder) throws {
            let content = try decoder.container(keyedBy: HARKey.self)
            let data = try HTTPArchive.bodyData(
                text: content.optional("text"), encoding: content.optional("encoding"), in: content, field: "text")
            body = HTTPArchive.Body(data, mimeType: try content.optional("mimeType") ?? "")
        }

        func encode(to encoder: any Encoder) throws {
            var content = encoder.container(keyedBy: HARKey.self)
            let (text, encoding) = HTTPArchive.bodyText(body.data)
            try content.encode(body.data.count, forKey: HARKey("size"))
            try content.encode(body.mimeType, forKey: HARKey("mimeType"))
            try content.encode(text, forKey: HARKey("text"))
            try content.encodeIfPresent(encoding, forKey: HARKey("encoding"))
        }
    }
}
