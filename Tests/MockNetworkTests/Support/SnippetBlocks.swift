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

/// The test sources under `root`, each with its code as one line (see `code(_:)`), for `check`.
func snippetHomes(under root: URL) throws -> [(file: URL, code: String)] {
    try testSources(under: root).map { file in
        (file: file, code: " " + code(try String(contentsOf: file, encoding: .utf8)) + " ")
    }
}

/// What is wrong with `block` as the code of a test in `homes`, each problem a sentence (none when
/// it is right): each run of lines between blank lines, its `import` lines aside, must be a run of
/// one file's code (comments and line breaks aside), and the file that has the first run must have
/// the block's `import` lines too.
func snippetProblems(_ block: [String], in homes: [(file: URL, code: String)]) throws -> [String] {
    let text = block.joined(separator: "\n")
    let isImport = { (line: String) in line.trimmingCharacters(in: .whitespaces).hasPrefix("import ") }
    let imports = block.filter(isImport).map { $0.trimmingCharacters(in: .whitespaces) }
    let runs = block.filter { !isImport($0) }
        .split { $0.trimmingCharacters(in: .whitespaces).isEmpty }
        .map { " " + code($0.joined(separator: "\n")) + " " }
        .filter { $0 != "  " }
    guard !runs.isEmpty else { return ["a snippet with no code:\n\(text)"] }
    var problems: [String] = []
    for (index, run) in runs.enumerated() {
        guard let home = homes.first(where: { $0.code.contains(run) }) else {
            problems.append("a snippet that is no test's code:\n\(run)\nin\n\(text)")
            continue
        }
        guard index == 0 else { continue }
        let lines = try String(contentsOf: home.file, encoding: .utf8).components(separatedBy: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for line in imports where !lines.contains(line) {
            problems.append("\(home.file.lastPathComponent) has the snippet but not its \(line)")
        }
    }
    return problems
}
