import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `*` pattern split once, at registration, into its literal runs of UTF-8 bytes, so matching a
/// request compares bytes and splits nothing.
struct CompiledGlob: Sendable {
    /// The literal runs between the `*`s; one run means no `*` at all.
    private let runs: [[UInt8]]

    init(_ pattern: String) {
        runs = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
    }

    /// Whether the pattern has no `*`, so it matches its own text only.
    var isLiteral: Bool { runs.count == 1 }

    /// The text a literal pattern matches.
    var literal: String? { isLiteral ? String(decoding: runs[0], as: UTF8.self) : nil }

    func matches(_ text: [UInt8]) -> Bool {
        guard runs.count > 1 else { return text == runs[0] }
        let first = runs[0]
        let last = runs[runs.count - 1]
        guard text.count >= first.count + last.count, text.starts(with: first),
            text[(text.count - last.count)...].elementsEqual(last)
        else { return false }
        var position = first.count
        let end = text.count - last.count
        for run in runs[1..<(runs.count - 1)] where !run.isEmpty {
            guard let found = Self.find(run, in: text, from: position, to: end) else { return false }
            position = found + run.count
        }
        return true
    }

    private static func find(_ run: [UInt8], in text: [UInt8], from start: Int, to end: Int) -> Int? {
        guard end - start >= run.count else { return nil }
        var index = start
        while index + run.count <= end {
            if text[index] == run[0], text[index..<(index + run.count)].elementsEqual(run) { return index }
            index += 1
        }
        return nil
    }
}

/// A host and path pattern, compiled once; what a request is checked against.
struct CompiledPattern: Sendable {
    let host: CompiledGlob
    let path: CompiledGlob?

    init(host: String, path: String?) {
        self.host = CompiledGlob(host)
        self.path = path.map(CompiledGlob.init)
    }
}

/// The parts of a request's URL that patterns look at, worked out once per lookup.
struct PatternSubject {
    let host: [UInt8]
    let path: [UInt8]

    init(_ url: URL) {
        host = Array((url.host ?? "").lowercased().utf8)
        path = Array(url.path.utf8)
    }

    var hostText: String { String(decoding: host, as: UTF8.self) }
}
