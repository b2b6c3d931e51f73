import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Matching the parts of a multipart body, and a product's content rules (``ContentRule``).
extension RequestMatch {
    /// A part a multipart body must have.
    struct PartRule: Sendable {
        let name: String
        let filename: String?
        let contentType: String?
    }

    /// Only requests whose `multipart/form-data` (or `multipart/mixed`) body has a part named `name`,
    /// with this filename and content type when given (the content type compared without its
    /// parameters, case-insensitively).
    ///
    /// ```swift
    /// mocks.register(.url("https://api.example.com/avatar").part("avatar", contentType: "image/png")) { _ in
    ///     .status(201)
    /// }
    /// ```
    public func part(_ name: String, filename: String? = nil, contentType: String? = nil) -> RequestMatch {
        var copy = self
        copy.parts.append(PartRule(name: name, filename: filename, contentType: contentType))
        return copy
    }

    /// The content and part rules in words, for ``description``.
    var bodyRuleWords: [String] {
        var out: [String] = content.map { [$0.words] } ?? []
        for part in parts {
            var text = "with part \(part.name)"
            if let filename = part.filename { text += " filename \(filename)" }
            if let contentType = part.contentType { text += " type \(contentType)" }
            out.append(text)
        }
        return out
    }

    /// Why the body fails the content and part rules, one phrase each; empty when it passes.
    func bodyRuleMismatches(_ reading: BodyReading) -> [String] {
        var out = content?.mismatches(reading) ?? []
        for rule in parts {
            out += Self.differences(reading.parts, rule)
        }
        return out
    }

    /// Whether the body passes the content and part rules, building no failure text (a lookup asks
    /// this of every route of an operation's name).
    func bodyRulesHold(_ reading: BodyReading) -> Bool {
        if let content, !content.holds(reading) { return false }
        return parts.isEmpty || parts.allSatisfy { Self.differences(reading.parts, $0).isEmpty }
    }

    private static func differences(_ reading: Result<[MultipartPart], any Error>, _ rule: PartRule) -> [String] {
        let parts: [MultipartPart]
        switch reading {
        case .success(let read): parts = read
        case .failure: return ["part \(rule.name) missing: the body is not multipart"]
        }
        let named = parts.filter { $0.name == rule.name }
        guard !named.isEmpty else { return ["part \(rule.name) missing"] }
        if named.contains(where: { Self.fits($0, rule) }) { return [] }
        var out: [String] = []
        if let filename = rule.filename, !named.contains(where: { $0.filename == filename }) {
            out.append("part \(rule.name) filename \(named[0].filename ?? "(none)") ≠ \(filename)")
        }
        if let type = rule.contentType, !named.contains(where: { Self.typeFits($0, type) }) {
            out.append("part \(rule.name) type \(named[0].contentType ?? "(none)") ≠ \(type)")
        }
        return out.isEmpty ? ["part \(rule.name) filename and type differ"] : out
    }

    private static func fits(_ part: MultipartPart, _ rule: PartRule) -> Bool {
        rule.filename.map { part.filename == $0 } ?? true && rule.contentType.map { typeFits(part, $0) } ?? true
    }

    private static func typeFits(_ part: MultipartPart, _ type: String) -> Bool {
        guard let have = part.contentType else { return false }
        return HeaderValue(have).lowercased == HeaderValue(type).lowercased
    }
}
