import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reading the parts of a multipart body, as RFC 2046 (5.1.1) frames them.
extension MultipartPart {
    /// The parts of `body`, a multipart body (`multipart/form-data`, `multipart/mixed`, …) whose
    /// boundary `contentType` names, quoted or not.
    ///
    /// The preamble before the first boundary line and the epilogue after the closing one are
    /// ignored, as is transport padding (spaces or tabs) after a boundary. Line breaks are CR LF, as
    /// the RFC says; a body written with bare LF throughout (as a hand-written one may be, its first
    /// boundary line ending with LF alone) is read with LF line breaks instead.
    ///
    /// - Throws: ``MultipartFormatError`` saying what is malformed: no multipart type or no boundary,
    ///   no first boundary line, no closing one, a part without the blank line after its header
    ///   fields, or a header line that is no field.
    public static func parts(in body: Data, contentType: String) throws -> [MultipartPart] {
        let type = HeaderValue(contentType)
        guard type.lowercased.hasPrefix("multipart/") else {
            throw MultipartFormatError.notMultipart(contentType: contentType)
        }
        guard let boundary = type.parameters["boundary"], !boundary.isEmpty else {
            throw MultipartFormatError.missingBoundary(contentType: contentType)
        }
        var reader = MultipartReader(bytes: [UInt8](body), boundary: boundary)
        return try reader.parts()
    }

    /// The parts of `request`'s body, read as its `Content-Type` says (see ``parts(in:contentType:)``).
    ///
    /// - Parameters:
    ///   - request: the request, such as the one a handler gets.
    ///   - body: its body; `request.httpBody` when `nil` (MockNetwork sets it for handlers, whatever
    ///     way the client sent the body).
    /// - Throws: ``MultipartFormatError``, as ``parts(in:contentType:)`` does, or
    ///   ``MultipartFormatError/notMultipart(contentType:)`` for a request without a `Content-Type`.
    public static func parts(of request: URLRequest, body: Data? = nil) throws -> [MultipartPart] {
        guard let contentType = request.value(forHTTPHeaderField: "Content-Type") else {
            throw MultipartFormatError.notMultipart(contentType: nil)
        }
        return try parts(in: body ?? request.httpBody ?? Data(), contentType: contentType)
    }
}

/// A pass over a multipart body's bytes.
private struct MultipartReader {
    let bytes: [UInt8]
    let boundary: String
    /// `--` and the boundary: what starts each boundary line.
    let dashBoundary: [UInt8]
    /// The body's line break: CR LF, or LF for a body whose first boundary line ends with LF alone.
    var lineBreak: [UInt8] = [13, 10]

    init(bytes: [UInt8], boundary: String) {
        self.bytes = bytes
        self.boundary = boundary
        self.dashBoundary = Array("--\(boundary)".utf8)
    }

    /// What follows a boundary line's `--boundary`.
    private enum Ending {
        /// `--`: the closing line.
        case close
        /// Transport padding and a line break: the next part starts at this offset.
        case part(Int)
    }

    mutating func parts() throws -> [MultipartPart] {
        guard let ending = firstBoundary() else { throw MultipartFormatError.boundaryNotFound(boundary: boundary) }
        guard case .part(var start) = ending else { return [] }
        var parts: [MultipartPart] = []
        while true {
            guard let (end, ending) = nextDelimiter(from: start) else {
                throw MultipartFormatError.missingFinalBoundary(boundary: boundary)
            }
            parts.append(try part(bytes[start..<end], number: parts.count + 1))
            switch ending {
            case .close: return parts
            case .part(let next): start = next
            }
        }
    }

    /// What ends the first line that starts with `--boundary` at the start of the body or of a line.
    /// That line decides the body's line break: CR LF, or LF when it ends with LF alone.
    private mutating func firstBoundary() -> Ending? {
        var from = 0
        while let found = find(dashBoundary, from: from) {
            if found == 0 || bytes[found - 1] == 10 {
                if let ending = ending(after: found + dashBoundary.count, lineBreak: lineBreak) { return ending }
                if let ending = ending(after: found + dashBoundary.count, lineBreak: [10]) {
                    lineBreak = [10]
                    return ending
                }
            }
            from = found + 1
        }
        return nil
    }

    /// Where the delimiter that ends the part starting at `start` begins (its line break), and what
    /// follows it. A boundary line right at `start` ends an empty part.
    private func nextDelimiter(from start: Int) -> (Int, Ending)? {
        if starts(with: dashBoundary, at: start),
            let ending = ending(after: start + dashBoundary.count, lineBreak: lineBreak)
        {
            return (start, ending)
        }
        let delimiter = lineBreak + dashBoundary
        var from = start
        while let found = find(delimiter, from: from) {
            if let ending = ending(after: found + delimiter.count, lineBreak: lineBreak) { return (found, ending) }
            from = found + 1
        }
        return nil
    }

    /// What follows `--boundary` at `offset`: `--` closes the body; padding and `lineBreak` open a
    /// part; anything else means the line was no boundary line (the boundary is only its prefix).
    private func ending(after offset: Int, lineBreak: [UInt8]) -> Ending? {
        if starts(with: [45, 45], at: offset) { return .close }
        var index = offset
        while index < bytes.count, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
        return starts(with: lineBreak, at: index) ? .part(index + lineBreak.count) : nil
    }

    private func part(_ content: ArraySlice<UInt8>, number: Int) throws -> MultipartPart {
        if content.isEmpty { return MultipartPart(body: Data()) }
        if content.starts(with: lineBreak) {
            return MultipartPart(body: Data(content.dropFirst(lineBreak.count)))
        }
        let blank = lineBreak + lineBreak
        if let split = find(blank, in: content) {
            let headers = try fields(content[content.startIndex..<split], number: number)
            return MultipartPart(headers: headers, body: Data(content[(split + blank.count)...]))
        }
        // Header fields and no body: valid (RFC 2046's body-part), when every line is a field.
        guard content.count > lineBreak.count, content.suffix(lineBreak.count).elementsEqual(lineBreak),
            let headers = try? fields(content.dropLast(lineBreak.count), number: number)
        else { throw MultipartFormatError.missingBlankLine(part: number) }
        return MultipartPart(headers: headers, body: Data())
    }

    /// The header fields of part `number`, unfolding lines that continue the one before (RFC 5322).
    private func fields(_ block: ArraySlice<UInt8>, number: Int) throws -> [String: String] {
        var fields: [(name: String, value: String)] = []
        for line in split(block) {
            let text = String(bytes: line, encoding: .utf8) ?? String(decoding: line, as: UTF8.self)
            if let first = line.first, first == 32 || first == 9, !fields.isEmpty {
                fields[fields.count - 1].value += " " + text.trimmingCharacters(in: .whitespaces)
                continue
            }
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
                !text[..<colon].contains(where: \.isWhitespace)
            else { throw MultipartFormatError.malformedHeader(part: number, line: text) }
            fields.append(
                (String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var headers: [String: String] = [:]
        for field in fields {
            if let existing = headers.keys.first(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
                headers[existing, default: ""] += ", " + field.value
            } else {
                headers[field.name] = field.value
            }
        }
        return headers
    }

    /// `block` split at line breaks.
    private func split(_ block: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = block.startIndex
        while let found = find(lineBreak, in: block[start...]) {
            lines.append(block[start..<found])
            start = found + lineBreak.count
        }
        lines.append(block[start...])
        return lines
    }

    private func starts(with pattern: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + pattern.count <= bytes.count
            && bytes[offset..<(offset + pattern.count)].elementsEqual(pattern)
    }

    private func find(_ pattern: [UInt8], from offset: Int) -> Int? {
        offset <= bytes.count ? find(pattern, in: bytes[offset...]) : nil
    }

    /// The offset of the first `pattern` in `slice`.
    private func find(_ pattern: [UInt8], in slice: ArraySlice<UInt8>) -> Int? {
        guard let first = pattern.first, slice.count >= pattern.count else { return nil }
        var index = slice.startIndex
        let last = slice.endIndex - pattern.count
        while index <= last {
            if slice[index] == first, slice[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
