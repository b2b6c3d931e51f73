import Foundation
import XCTest

/// The core stays the size it is unless someone decides otherwise: what a user's clean build pays
/// for MockNetwork follows the amount of the core's source (about 1 s of CPU per 1,000 lines on
/// the 2-core CI machine, `scripts/build_cost.py`; BENCHMARKS.md, "Adoption"), so the core's lines,
/// public declarations, files and `register` forms each have a ceiling here. Code that a feature
/// adds to the core raises a ceiling in the same change, with the reason in its commit; a feature
/// that fits a product goes there (ARCHITECTURE.md, "Products and the core's extension points").
final class CoreBudgetTests: XCTestCase {
    /// Lines of the core's Swift files, comments and blank lines included (`wc -l`). 10,356 when the
    /// ceiling was set; raised for the clock of waits (`PoolClock`, used by the products' waits too)
    /// and the cancel of tasks not begun that replaced Linux's `getAllTasks`.
    static let maxLines = 10_600
    /// Declarations whose line starts with `public` or `open` (a type, a member, a case).
    static let maxPublicDeclarations = 185
    /// A file holds one concern: one that grows past this is split.
    static let maxFileLines = 300
    /// `register` forms on `MockRegistering` (the core's; products add their own).
    static let maxRegisterForms = 8

    func testTheCoreStaysWithinItsCeilings() throws {
        let files = try coreSourceFiles()
        XCTAssertGreaterThan(files.count, 50, "the core's files are read")
        let lines = files.map(\.lines.count).reduce(0, +)
        let code = files.flatMap(\.lines).map { $0.trimmingCharacters(in: .whitespaces) }
        let publicDeclarations = code.filter { $0.hasPrefix("public ") || $0.hasPrefix("open ") }.count
        let forms = code.filter { $0.hasPrefix("public func register(") || $0.hasPrefix("public func register<") }
        let registerForms = forms.count
        let long = files.filter { $0.lines.count > Self.maxFileLines }.map { "\($0.path) (\($0.lines.count) lines)" }

        XCTAssertLessThanOrEqual(
            lines, Self.maxLines,
            "the core has \(lines) lines: move the feature to a product, or raise maxLines with the reason")
        XCTAssertLessThanOrEqual(
            publicDeclarations, Self.maxPublicDeclarations,
            "the core has \(publicDeclarations) public declarations: raise maxPublicDeclarations with the reason")
        XCTAssertLessThanOrEqual(registerForms, Self.maxRegisterForms, "the core has \(registerForms) register forms")
        XCTAssertEqual(long, [], "split these files by concern")
        print("the core: \(lines) lines, \(publicDeclarations) public declarations, \(registerForms) register forms")
    }
}
