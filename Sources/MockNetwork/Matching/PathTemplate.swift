import Foundation

/// A path template such as `/v1/users/{id}/posts/{postID}` or `/files/{path*}`, parsed once at
/// registration: literal segments, `{name}` parameters that each match one whole, non-empty
/// segment (never a `/`), and at most one trailing catch-all `{name*}` that matches the rest.
struct PathTemplate: Sendable, Equatable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let text: String
    let segments: [Segment]
    /// The name of the trailing catch-all, if the template ends with one.
    let catchAll: String?

    /// How many segments are literal: more of them make a template more specific.
    var literalCount: Int {
        segments.reduce(0) { count, segment in if case .literal = segment { count + 1 } else { count } }
    }

    /// Whether `path` is a template at all (it holds a `{` or a `}`). Searched as UTF-8 bytes, as
    /// every registration asks it.
    static func isTemplate(_ path: some StringProtocol) -> Bool {
        let hasBrace = { (byte: UInt8) in byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") }
        return path.utf8.withContiguousStorageIfAvailable { $0.contains(where: hasBrace) }
            ?? path.utf8.contains(where: hasBrace)
    }

    /// Parses `text`; the error says what is wrong with it and how to write it.
    static func parse(_ text: String) -> Result<PathTemplate, TemplateError> {
        var segments: [Segment] = []
        var catchAll: String?
        var names: Set<String> = []
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).dropFirst(text.hasPrefix("/") ? 1 : 0)
        for (index, part) in parts.enumerated() {
            guard part.contains("{") || part.contains("}") else {
                // Compared with the request's segments, which are percent-decoded: so is this.
                segments.append(.literal(part.removingPercentEncoding ?? String(part)))
                continue
            }
            guard part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2,
                part.dropFirst().dropLast().allSatisfy({ $0 != "{" && $0 != "}" })
            else {
                return .failure(
                    TemplateError(
                        "the segment \"\(part)\" of the path template \"\(text)\" mixes a parameter with other text. "
                            + "A parameter takes a whole segment: write /v{version} as /{version}, and check the value "
                            + "in the handler."))
            }
            var name = String(part.dropFirst().dropLast())
            let isCatchAll = name.hasSuffix("*")
            if isCatchAll { name.removeLast() }
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                return .failure(
                    TemplateError(
                        "\"\(part)\" in the path template \"\(text)\" is not a parameter name. Name it with letters, "
                            + "digits, _ or -, e.g. {id}, or {path*} for the rest of the path."))
            }
            guard names.insert(name).inserted else {
                return .failure(
                    TemplateError(
                        "the path template \"\(text)\" names the parameter {\(name)} twice. Give each a name of its own."
                    ))
            }
            if isCatchAll {
                guard index == parts.count - 1 else {
                    return .failure(
                        TemplateError(
                            "the catch-all {\(name)*} in the path template \"\(text)\" is not the last segment. Only "
                                + "the last segment may take the rest of the path."))
                }
                catchAll = name
            } else {
                segments.append(.parameter(name))
            }
        }
        return .success(PathTemplate(text: text, segments: segments, catchAll: catchAll))
    }

    /// The captured values for a request whose path has these (percent-decoded) segments, or `nil`
    /// when it does not fit the template.
    func capture(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count || (catchAll != nil && path.count >= segments.count) else { return nil }
        var values: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard literal == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                values[name] = value
            }
        }
        if let catchAll { values[catchAll] = path.dropFirst(segments.count).joined(separator: "/") }
        return values
    }

    /// Why a path with these segments does not fit, in words; `nil` when it fits.
    func difference(_ path: [String], shown: String) -> String? {
        guard capture(path) == nil else { return nil }
        for (index, (segment, value)) in zip(segments, path).enumerated() {
            switch segment {
            case .literal(let literal) where literal != value:
                return
                    "path segment \(index + 1) \"\(value)\" ≠ \"\(literal)\" (path \"\(shown)\", template \"\(text)\")"
            case .parameter(let name) where value.isEmpty:
                return "path segment \(index + 1) is empty, and {\(name)} needs a value (path \"\(shown)\")"
            default: continue
            }
        }
        return "path \"\(shown)\" has \(path.count) segment\(path.count == 1 ? "" : "s"), the template \"\(text)\" "
            + (catchAll == nil ? "\(segments.count)" : "\(segments.count) or more")
    }

    /// The path of `url` as percent-decoded segments, split where the URL has a `/` (so an encoded
    /// `%2F` stays inside its segment).
    static func segments(of url: URL) -> [String] { TemplateSubject(url).path }
}

/// The parts of a request's URL that templates look at, read once per lookup from its absolute
/// string, with no URL parsing: its origin (`https://api.example.com:8080`, lowercased), its host,
/// and its path as percent-decoded segments.
struct TemplateSubject {
    let origin: String
    let host: String
    let path: [String]

    init(_ url: URL) {
        let absolute = url.absoluteString
        let bytes = Array(absolute.utf8)
        var index = 0
        // Scheme and "://"; a URL without them has no origin.
        while index + 2 < bytes.count, !(bytes[index] == 0x3A && bytes[index + 1] == 0x2F && bytes[index + 2] == 0x2F) {
            index += 1
        }
        guard index + 2 < bytes.count else {
            (origin, host, path) = ("", "", [])
            return
        }
        let authorityStart = index + 3
        var pathStart = authorityStart
        while pathStart < bytes.count, bytes[pathStart] != 0x2F, bytes[pathStart] != 0x3F, bytes[pathStart] != 0x23 {
            pathStart += 1
        }
        origin = String(decoding: bytes[..<pathStart], as: UTF8.self).lowercased()
        var hostStart = authorityStart
        if let at = bytes[authorityStart..<pathStart].lastIndex(of: 0x40) { hostStart = at + 1 }
        let hostEnd = bytes[hostStart..<pathStart].firstIndex(of: 0x3A) ?? pathStart
        host = String(decoding: bytes[hostStart..<hostEnd], as: UTF8.self).lowercased()
        var segments: [String] = []
        guard pathStart < bytes.count, bytes[pathStart] == 0x2F else {
            path = []
            return
        }
        var start = pathStart + 1
        var cursor = start
        var encoded = false
        while true {
            let atEnd = cursor == bytes.count || bytes[cursor] == 0x3F || bytes[cursor] == 0x23
            if atEnd || bytes[cursor] == 0x2F {
                let text = String(decoding: bytes[start..<cursor], as: UTF8.self)
                segments.append(encoded ? (text.removingPercentEncoding ?? text) : text)
                if atEnd { break }
                (start, encoded) = (cursor + 1, false)
            } else if bytes[cursor] == 0x25 {
                encoded = true
            }
            cursor += 1
        }
        path = segments
    }
}

/// What is wrong with a path template.
struct TemplateError: Error, Equatable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Path templates of one host, filed as a tree of segments, so a lookup walks the request's path
/// once instead of trying every template.
struct TemplateTree: Sendable {
    private struct Node: Sendable {
        var literals: [String: Int] = [:]
        var parameter: Int?
        /// Routes whose template ends here.
        var ends: [Int] = []
        /// Routes whose template ends here with a catch-all.
        var catchAlls: [Int] = []
    }

    private var nodes = [Node()]

    mutating func insert(_ template: PathTemplate, id: Int) {
        var current = 0
        for segment in template.segments {
            switch segment {
            case .literal(let literal):
                if let next = nodes[current].literals[literal] {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].literals[literal] = nodes.count - 1
                    current = nodes.count - 1
                }
            case .parameter:
                if let next = nodes[current].parameter {
                    current = next
                } else {
                    nodes.append(Node())
                    nodes[current].parameter = nodes.count - 1
                    current = nodes.count - 1
                }
            }
        }
        if template.catchAll != nil {
            nodes[current].catchAlls.append(id)
        } else {
            nodes[current].ends.append(id)
        }
    }

    /// The routes whose templates fit a path with these segments.
    func candidates(_ path: [String]) -> [Int] {
        var found: [Int] = []
        func walk(_ node: Int, _ index: Int) {
            let here = nodes[node]
            found += here.catchAlls
            guard index < path.count else {
                found += here.ends
                return
            }
            if let next = here.literals[path[index]] { walk(next, index + 1) }
            if let next = here.parameter, !path[index].isEmpty { walk(next, index + 1) }
        }
        walk(0, 0)
        return found
    }
}
