import Foundation
import XCTest

/// The README as the front door: its snippets are the code of tests, the everyday cases come right
/// after the first screen and end near line 110, and each product has a short section that links
/// its documentation.
final class ReadmeTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func readme() throws -> String {
        try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    }

    /// Each ```swift block (but the manifest's) is code of a test file under `Tests/` or
    /// `Examples/`: its `import` lines are that file's, and each run of lines between blank lines
    /// is a run of that file's code, comments and line breaks aside (the formatter wraps them its way).
    func testEverySnippetIsTheCodeOfATest() throws {
        let sources = try snippetHomes(under: root)
        XCTAssertGreaterThan(sources.count, 50)
        let blocks = swiftBlocks(in: try readme())
        XCTAssertGreaterThanOrEqual(blocks.count, 6)
        for block in blocks where block.first?.hasPrefix("// Package.swift") != true {
            let text = block.joined(separator: "\n")
            for problem in try snippetProblems(block, in: sources) { XCTFail(problem) }
            // `register`'s two-parameter kinds (operation, route parameters) are told apart by name.
            XCTAssertFalse(text.contains(", _ in"), "a handler whose second parameter is `_`:\n\(text)")
        }
    }

    /// A reader from the tutorials meets their shape first, and has every everyday case by line 110.
    func testTheEverydayCasesFollowTheFirstScreenAndEndNearLine110() throws {
        let lines = try readme().components(separatedBy: "\n")
        let first = try XCTUnwrap(swiftBlocks(in: lines.joined(separator: "\n")).first).joined(separator: "\n")
        XCTAssertTrue(first.contains(": MockNetworkTestCase"), "the first snippet is the base class's")
        XCTAssertTrue(first.contains("register(\"https://"), "the first snippet registers a handler for a URL")
        let headings = lines.indices.filter { lines[$0].hasPrefix("## ") }
        XCTAssertEqual(lines[headings[0]], "## The everyday cases")
        XCTAssertLessThanOrEqual(headings[0] + 1, 70, "the first screen grew")
        XCTAssertLessThanOrEqual(headings[1] + 1, 115, "the everyday cases end at line \(headings[1])")
        let everyday = lines[headings[0]..<headings[1]].joined(separator: "\n")
        for needle in [
            "MockURLProtocol", "(URLRequest) throws -> (HTTPURLResponse, Data)", "init()", ".json(", ".status(401)",
            ".failure(.notConnectedToInternet)", "mocks.requests", "MigratingFromAHandWrittenProtocol.md",
        ] {
            XCTAssertTrue(everyday.contains(needle), "the everyday cases leave out \(needle)")
        }
        // About 200 lines, and the server's WebSockets (0.3.0).
        XCTAssertLessThanOrEqual(lines.count, 245, "the README grew past about 200 lines")
    }

    /// Every product of the package is in "Adding the package" and has a section of its own, short,
    /// with at most one snippet and a link to its documentation.
    func testEachProductHasAShortSectionThatLinksItsDocumentation() throws {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = manifest.components(separatedBy: ".library(name: \"").dropFirst()
            .map { String($0.prefix { $0 != "\"" }) }
        XCTAssertEqual(products.count, 6, "\(products)")
        let sections = try readme().components(separatedBy: "\n## ").dropFirst()
        let adding = try XCTUnwrap(sections.first { $0.hasPrefix("Adding the package\n") })
        for product in products {
            XCTAssertTrue(adding.contains("`\(product)`"), "Adding the package does not name \(product)")
            guard let section = sections.first(where: { $0.hasPrefix("\(product): ") }) else {
                XCTFail("no section \"## \(product): …\"")
                continue
            }
            XCTAssertLessThanOrEqual(section.components(separatedBy: "\n").count, 26, "\(product)'s section grew")
            XCTAssertLessThanOrEqual(swiftBlocks(in: section).count, 1, "\(product)'s section has snippets")
            XCTAssertTrue(section.contains(".docc/"), "\(product)'s section links no article")
        }
    }
}
