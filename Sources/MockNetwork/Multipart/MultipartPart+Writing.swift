import Foundation

/// Writing parts as a multipart body, as RFC 2046 (5.1.1) frames them.
extension MultipartPart {
    /// `parts` framed as a multipart body with `boundary`, in one piece per part.
    ///
    /// Each piece ends with the boundary line after its part (the last with the closing
    /// `--boundary--` and a line break), so a client that reads the body as it arrives (as Apollo iOS
    /// does) has a part whole as soon as its piece comes. The body starts with a line break before
    /// the first boundary line (an empty preamble), which such clients expect. Header fields are
    /// written sorted by name; line breaks are CR LF. The pieces joined are the whole body.
    ///
    /// - Throws: ``MultipartFormatError/unwritable(_:)`` when there are no parts, the boundary is not
    ///   1 to 70 of the characters RFC 2046 allows, a field name or value cannot be a header line,
    ///   or a part's body holds the boundary line itself.
    public static func framed(_ parts: [MultipartPart], boundary: String) throws -> [Data] {
        try check(boundary)
        guard !parts.isEmpty else {
            throw MultipartFormatError.unwritable(
                "a multipart body holds at least one part, and none was given. Give the parts to send.")
        }
        let lineBreak = Data("\r\n".utf8)
        let delimiter = lineBreak + Data("--\(boundary)".utf8)
        var pieces: [Data] = []
        for (index, part) in parts.enumerated() {
            var piece = index == 0 ? delimiter : Data()
            piece += lineBreak
            for name in part.headers.keys.sorted() {
                let value = part.headers[name] ?? ""
                try check(name: name, value: value, part: index + 1)
                piece += Data("\(name): \(value)".utf8) + lineBreak
            }
            piece += lineBreak
            guard (lineBreak + part.body).range(of: delimiter) == nil else {
                throw MultipartFormatError.unwritable(
                    "part \(index + 1)'s body holds a line \"--\(boundary)\", which would end it there. Choose "
                        + "a boundary that none of the bodies holds.")
            }
            piece += part.body + delimiter
            if index == parts.count - 1 { piece += Data("--".utf8) + lineBreak }
            pieces.append(piece)
        }
        return pieces
    }

    /// RFC 2046's `bchars`: what a boundary may hold (and a space, though not at its end).
    private static let boundaryCharacters = Set(
        "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ")

    private static func check(_ boundary: String) throws {
        guard (1...70).contains(boundary.count), boundary.allSatisfy(boundaryCharacters.contains),
            !boundary.hasSuffix(" ")
        else {
            throw MultipartFormatError.unwritable(
                "\"\(boundary)\" cannot be a multipart boundary. Give 1 to 70 letters, digits or "
                    + "'()+_,-./:=? (a space too, though not at the end).")
        }
    }

    private static func check(name: String, value: String, part: Int) throws {
        let separators = Set("()<>@,;:\\\"/[]?={} \t")
        let nameIsToken =
            !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 && $0.value < 127 }
            && !name.contains(where: separators.contains)
        guard nameIsToken, !value.contains(where: \.isNewline) else {
            throw MultipartFormatError.unwritable(
                "part \(part)'s header field \"\(name): \(value)\" cannot be a header line. Give a name of "
                    + "letters, digits and -, and a value without line breaks.")
        }
    }
}

extension MockResponse {
    /// A `multipart/mixed` answer of `parts`, with `Content-Type: multipart/mixed; boundary="…"`
    /// unless `headers` sets it: all at once, or over time with `every`.
    ///
    /// ```swift
    /// .multipart([
    ///     MultipartPart(headers: ["Content-Type": "application/json"], body: Data(#"{"id": 7}"#.utf8)),
    ///     MultipartPart(headers: ["Content-Type": "image/png"], body: avatar),
    /// ])
    /// ```
    ///
    /// With `every`, each part is a piece of the body, the first with the response and each next one
    /// `every` after the one before, as `.streamed(_:every:)` sends pieces (with no `Content-Length`).
    /// Each piece ends with the boundary line after its part, so a client reading the body as it
    /// comes has each part whole when its piece comes.
    ///
    /// Parts that cannot be written (see ``MultipartPart/framed(_:boundary:)``: ``MultipartFormatError/unwritable(_:)``),
    /// a negative `every` (``MockNetworkError/invalidStream(_:)``) or a status outside `200...599`
    /// fail the request, and the test at this call.
    public static func multipart(
        _ parts: [MultipartPart], boundary: String = "mocknetwork-boundary", every interval: Duration? = nil,
        status: Int = 200, headers: [String: String] = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> MockResponse {
        checked(at: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)) {
            let pieces = try MultipartPart.framed(parts, boundary: boundary)
            var headers = headers
            if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Content-Type") == .orderedSame }) {
                headers["Content-Type"] = "multipart/mixed; boundary=\"\(boundary)\""
            }
            if let interval {
                return try stream(
                    pieces, every: interval, status: status, headers: headers,
                    contentType: "application/octet-stream")
            }
            return try MockResponse(status: status, headers: headers, body: pieces.reduce(Data(), +))
        }
    }
}
