import Foundation

/// The lines of each ```swift block of `text` (a README or a DocC article), for the tests that keep
/// snippets the code of a test.
func swiftBlocks(in text: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in text.components(separatedBy: "\n") {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if current == nil, trimmed == "```swift" {
            current = []
        } else if let lines = current, trimmed == "```" {
            blocks.append(lines)
            current = nil
        } else {
            current?.append(line)
        }
    }
    return blocks
}

/// The Swift files of the tests and the examples under `root` (the package), the snippet checks'
/// own files (`ReadmeTests`, `ArticleSnippetTests`) aside.
func testSources(under root: URL) throws -> [URL] {
    let checks = ["ReadmeTests.swift", "ArticleSnippetTests.swift"].map { "/Tests/MockNetworkTests/" + $0 }
    var files: [URL] = []
    for folder in ["Tests", "Examples"] {
        let base = root.appendingPathComponent(folder)
        let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        while let file = walker?.nextObject() as? URL {
            let path = file.path
            let isACheck = checks.contains { path.hasSuffix($0) }
            guard path.hasSuffix(".swift"), !path.contains("/.build/"), !isACheck else { continue }
            files.append(file)
        }
    }
    return files
}

/// `text` as one line of code: comments out, whitespace runs as one space.
func code(_ text: String) -> String {
    text.components(separatedBy: "\n").map(withoutComment)
        .flatMap { $0.split(whereSeparator: \.isWhitespace) }.joined(separator: " ")
}

/// `line` up to its `//` comment, if any: a `//` at the start or after a space, outside a
/// string literal (so not the one of `"https://…"`).
func withoutComment(_ line: String) -> String {
    let characters = Array(line)
    var inString = false
    for index in characters.indices {
        let character = characters[index]
        if character == "\"", index == 0 || characters[index - 1] != "\\" {
            inString.toggle()
        } else if !inString, character == "/", index + 1 < characters.count, characters[index + 1] == "/",
            index == 0 || characters[index - 1].isWhitespace
        {
            return String(characters[..<index])
        }
    }
    return line
}
