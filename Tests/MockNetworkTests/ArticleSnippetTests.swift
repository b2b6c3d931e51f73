import Foundation
import XCTest

/// The DocC articles' snippets are the code of tests, as the README's are (`ReadmeTests`): each
/// ```swift block of every `Sources/*/*.docc/*.md` is code of a test file under `Tests/` or
/// `Examples/`, so it compiles with the package and runs.
final class ArticleSnippetTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The articles: every `.md` of a `.docc` catalog of a target under `Sources/`.
    private func articles() throws -> [URL] {
        let sources = root.appendingPathComponent("Sources")
        var articles: [URL] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let folder = sources.appendingPathComponent(target)
            for catalog in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            where catalog.hasSuffix(".docc") {
                let docc = folder.appendingPathComponent(catalog)
                for file in try FileManager.default.contentsOfDirectory(atPath: docc.path).sorted()
                where file.hasSuffix(".md") {
                    articles.append(docc.appendingPathComponent(file))
                }
            }
        }
        return articles
    }

    /// Whether `block` is exempt: a migration guide's "before", the code of another library or of a
    /// hand-written protocol (`// Before: …`), or a package manifest (`// Package.swift …`).
    private func isExempt(_ block: [String]) -> Bool {
        guard let first = block.first?.trimmingCharacters(in: .whitespaces) else { return false }
        return first.hasPrefix("// Before:") || first.hasPrefix("// Package.swift")
    }

    /// Each block (but the exempt ones) is code of a test file: its `import` lines are that file's,
    /// and each run of lines between blank lines is a run of that file's code, comments and line
    /// breaks aside.
    func testEveryArticleSnippetIsTheCodeOfATest() throws {
        let sources = try snippetHomes(under: root)
        XCTAssertGreaterThan(sources.count, 50)
        let articles = try articles()
        XCTAssertGreaterThanOrEqual(articles.count, 24)
        var checked = 0
        var exempt = 0
        for article in articles {
            let name = article.pathComponents.suffix(3).joined(separator: "/")
            for block in swiftBlocks(in: try String(contentsOf: article, encoding: .utf8)) {
                guard !isExempt(block) else {
                    exempt += 1
                    continue
                }
                checked += 1
                for problem in try snippetProblems(block, in: sources) { XCTFail("\(name): \(problem)") }
            }
        }
        XCTAssertGreaterThanOrEqual(checked, 65, "fewer snippets checked than the articles had (\(exempt) exempt)")
    }
}
