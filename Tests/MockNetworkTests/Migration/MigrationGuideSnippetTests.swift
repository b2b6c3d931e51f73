import Foundation
import XCTest

/// The migration guides in the core's catalog show their "after" code as it is in this folder's
/// tests, so it compiles and passes; their "before" code (another library's, which this package
/// does not build) starts with a `// Before` line.
final class MigrationGuideSnippetTests: XCTestCase {
    private let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    private var root: URL { folder.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    /// The widest code line a guide may show: at 1280 px, with the sidebar open, DocC's code box
    /// holds about 76 columns and cuts off the rest.
    private let widestLine = 76

    private func guides() throws -> [(name: String, text: String)] {
        let catalog = root.appendingPathComponent("Sources/MockNetwork/MockNetwork.docc")
        return try FileManager.default.contentsOfDirectory(atPath: catalog.path)
            .filter { $0.hasPrefix("Migrating") && $0.hasSuffix(".md") }.sorted()
            .map { ($0, try String(contentsOf: catalog.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The code lines of `lines`, trimmed, without blank lines.
    private func code(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private func testSources() throws -> [String: [String]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        var sources: [String: [String]] = [:]
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            sources[name] = code(text.components(separatedBy: "\n"))
        }
        return sources
    }

    func testEveryAfterSnippetIsTheCodeOfATestHere() throws {
        let guides = try guides()
        XCTAssertEqual(guides.count, 3, "\(guides.map(\.name))")
        let sources = try testSources()
        for guide in guides {
            let blocks = swiftBlocks(in: guide.text)
            let before = blocks.filter { code($0).first?.hasPrefix("// Before") ?? false }
            XCTAssertFalse(before.isEmpty, "\(guide.name) shows no before code")
            XCTAssertGreaterThan(blocks.count, before.count, "\(guide.name) shows no after code")
            for block in blocks where !(code(block).first?.hasPrefix("// Before") ?? false) {
                let lines = code(block)
                let imports = lines.filter { $0.hasPrefix("import ") }
                let body = lines.filter { !$0.hasPrefix("import ") }
                let home = sources.first { _, source in
                    imports.allSatisfy(source.contains) && contains(source, body)
                }
                XCTAssertNotNil(
                    home,
                    "\(guide.name): the block starting \"\(body.first ?? "")\" is in no test of Tests/MockNetworkTests/"
                        + "Migration as it is written (imports apart, line for line): copy it from its test")
            }
        }
    }

    func testNoGuideShowsACodeLineWiderThanItsBox() throws {
        for guide in try guides() {
            for line in swiftBlocks(in: guide.text).joined() where line.count > widestLine {
                XCTFail("\(guide.name): \(line.count) columns, over \(widestLine) (cut off on the page): \(line)")
            }
        }
    }

    /// Whether `lines` appear one after another in `source`.
    private func contains(_ source: [String], _ lines: [String]) -> Bool {
        guard !lines.isEmpty, lines.count <= source.count else { return lines.isEmpty }
        return (0...(source.count - lines.count)).contains { start in
            source[start..<(start + lines.count)].elementsEqual(lines)
        }
    }
}
