import Foundation
import XCTest

/// "Platform differences" says of each row how it is known, and the tests it names exist.
final class PlatformDifferencesTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The table's rows, each as its cells.
    private func rows() throws -> [[String]] {
        let page = try String(
            contentsOf: root.appendingPathComponent("Sources/MockNetwork/MockNetwork.docc/PlatformDifferences.md"),
            encoding: .utf8)
        return page.components(separatedBy: "\n").filter { $0.hasPrefix("| ") && !$0.hasPrefix("| Difference |") }
            .map { line in
                line.dropFirst(2).dropLast(2).components(separatedBy: " | ")
            }
    }

    /// Every `func name` of the tests, by the innermost type it is in: `Type.name` (a suite nested in
    /// an extension, such as `TimingSensitive`'s, by its own name).
    private func testNames() throws -> Set<String> {
        let folder = root.appendingPathComponent("Tests")
        let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        let type = try NSRegularExpression(
            pattern:
                #"^( *)(?:@\w+(?:\([^)]*\))? |private |fileprivate )*(?:final class|class|struct|enum|extension) (\w+)"#
        )
        let function = try NSRegularExpression(pattern: #"^( *)(?:@Test[^\n]*\s+|private |static )*func (\w+)"#)
        var names = Set<String>()
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // The types around the current line, each with its indentation: a line at an indentation
            // no deeper than a type's is past that type.
            var around: [(indent: Int, name: String)] = []
            for line in text.components(separatedBy: "\n") {
                let range = NSRange(line.startIndex..., in: line)
                for (regex, isType) in [(type, true), (function, false)] {
                    guard let match = regex.firstMatch(in: line, range: range),
                        let name = Range(match.range(at: 2), in: line)
                    else { continue }
                    let indent = match.range(at: 1).length
                    around.removeAll { $0.indent >= indent }
                    if isType {
                        around.append((indent, String(line[name])))
                    } else if let owner = around.last {
                        names.insert("\(owner.name).\(line[name])")
                    }
                    break
                }
            }
        }
        return names
    }

    func testEveryRowSaysHowItIsKnown() throws {
        let rows = try rows()
        XCTAssertGreaterThan(rows.count, 15)
        for row in rows {
            XCTAssertEqual(row.count, 3, "a row without its three cells: \(row.first ?? "")")
            let known = row.last ?? ""
            XCTAssertTrue(
                known.hasPrefix("Linux: verified") || known.hasPrefix("Linux (")
                    || known.hasPrefix("From documentation"),
                "a row that does not say how it is known: \(row.first ?? "")")
            XCTAssertTrue(
                known.contains("from documentation only") || known.contains("from reports only")
                    || known.contains("not verified here") || known.contains("not run here")
                    || known.hasPrefix("From documentation"),
                "a row that does not say how Apple's side is known: \(row.first ?? "")")
        }
    }

    func testEveryTestARowNamesExists() throws {
        let names = try testNames()
        XCTAssertTrue(names.contains("PlatformDifferencesTests.testEveryTestARowNamesExists"), "the scan finds tests")
        let named = try NSRegularExpression(pattern: #"`([A-Z]\w+Tests\.\w+)`"#)
        var count = 0
        for row in try rows() {
            let known = row.last ?? ""
            for match in named.matches(in: known, range: NSRange(known.startIndex..., in: known)) {
                guard let range = Range(match.range(at: 1), in: known) else { continue }
                count += 1
                XCTAssertTrue(
                    names.contains(String(known[range])),
                    "\"Platform differences\" names \(known[range]), which is no test: update the row")
            }
        }
        XCTAssertGreaterThan(count, 20)
    }
}
