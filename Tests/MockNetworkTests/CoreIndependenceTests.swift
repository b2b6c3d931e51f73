import Foundation
import XCTest

/// The core knows none of the products built on it: no file of `Sources/MockNetwork` imports one,
/// and no line of its code (comments aside) names GraphQL, archives (HAR) or launches. What those
/// products need, the core offers as extension points (`ContentRule`, `RegistryBacking`,
/// `addFallback`, …: ARCHITECTURE.md, "Products and the core's extension points").
final class CoreIndependenceTests: XCTestCase {
    func testTheCoreImportsNoProduct() throws {
        let files = try coreSourceFiles()
        XCTAssertGreaterThan(files.count, 50, "the core's files are read")
        for (path, lines) in files {
            for (number, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard code.hasPrefix("import ") || code.hasPrefix("@testable import ") || code.hasPrefix("@_exported")
                else { continue }
                XCTAssertFalse(
                    code.contains("MockNetwork"),
                    "Sources/MockNetwork/\(path):\(number + 1) imports \(code): the core depends on no product")
            }
        }
    }

    func testNoLineOfTheCoresCodeNamesGraphQLArchivesOrLaunches() throws {
        // Case-insensitive, in identifiers and in the text of messages alike.
        let names = try NSRegularExpression(pattern: "graphql|archive|\\bhar\\b|launch", options: .caseInsensitive)
        var found: [String] = []
        for (path, lines) in try coreSourceFiles() {
            for (number, line) in lines.enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }  // a comment, which may point at a product
                let range = NSRange(code.startIndex..., in: code)
                if names.firstMatch(in: code, range: range) != nil {
                    found.append("Sources/MockNetwork/\(path):\(number + 1): \(code)")
                }
            }
        }
        XCTAssertEqual(
            found, [],
            "the core names a product's subject; move the code to the product, through an extension point")
    }

    /// The check above finds what it looks for: a line that names GraphQL is caught.
    func testTheSearchCatchesANameInCode() throws {
        let names = try NSRegularExpression(pattern: "graphql|archive|\\bhar\\b|launch", options: .caseInsensitive)
        for line in ["let rule: GraphQLRule", "var archive: HTTPArchive?", "case \"har\":", "MockRegistry.launched()"] {
            XCTAssertNotNil(names.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)), line)
        }
        let harmless = "let shared = hardware"
        XCTAssertNil(names.firstMatch(in: harmless, range: NSRange(harmless.startIndex..., in: harmless)))
    }
}
