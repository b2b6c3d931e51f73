import Foundation

/// The core's Swift files (`Sources/MockNetwork`), by their paths below it, with their lines as
/// `wc -l` counts them (the lines that end with a line break), for the tests that read the core.
func coreSourceFiles() throws -> [(path: String, lines: [Substring])] {
    let core = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/MockNetwork")
    let paths = (FileManager.default.enumerator(atPath: core.path)?.allObjects as? [String]) ?? []
    return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
        let text = try String(contentsOf: core.appendingPathComponent(path), encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return (path, lines)
    }
}
