import Foundation
import XCTest

/// `ARCHITECTURE.md` matches the tree: every file and folder it names exists, and every folder of
/// the sources is on the map.
final class ArchitectureMapTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private func map() throws -> String {
        try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
    }

    /// Every path below `folder`, relative to it.
    private func paths(below folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        let enumerator = FileManager.default.enumerator(atPath: base.path)
        return (enumerator?.allObjects as? [String]) ?? []
    }

    private func names(in text: String, matching pattern: String) throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            regex.matches(in: text, range: range).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            })
    }

    func testEverySwiftFileTheMapNamesExists() throws {
        let files = paths(below: "Sources").filter { $0.hasSuffix(".swift") }
        let named = try names(in: map(), matching: "`([A-Za-z+/]+\\.swift)`")
        XCTAssertGreaterThan(named.count, 10, "the map names the files of the request's way")
        for name in named.sorted() {
            XCTAssertTrue(
                files.contains { $0 == name || $0.hasSuffix("/" + name) },
                "ARCHITECTURE.md names \(name), which is not under Sources/: update the map")
        }
    }

    func testEveryFolderOfTheSourcesIsOnTheMap() throws {
        let text = try map()
        let folders = ["Sources/MockNetwork", "Sources/MockNetworkTesting", "Sources/MockNetworkServer"].flatMap {
            module in
            paths(below: module).filter { path in
                var isFolder: ObjCBool = false
                let full = root.appendingPathComponent(module).appendingPathComponent(path).path
                return !path.contains("/") && !path.hasSuffix(".docc")
                    && FileManager.default.fileExists(atPath: full, isDirectory: &isFolder) && isFolder.boolValue
            }
        }
        XCTAssertTrue(folders.contains("RequestPath"), "\(folders)")
        for folder in folders {
            XCTAssertTrue(text.contains("`\(folder)/`"), "Sources has \(folder)/, which ARCHITECTURE.md does not map")
        }
    }

    func testEveryFolderTheMapNamesExists() throws {
        let named = try names(in: map(), matching: "`([A-Za-z]+)/`")
        let places = [
            "Sources/MockNetwork", "Sources/MockNetworkTesting", "Sources/MockNetworkServer", "Tests/MockNetworkTests",
            "Tests/MockNetworkTests/HAR",
            ".",
        ]
        for folder in named.sorted() {
            let exists = places.contains { place in
                var isFolder: ObjCBool = false
                let path = root.appendingPathComponent(place).appendingPathComponent(folder).path
                return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            }
            XCTAssertTrue(exists, "ARCHITECTURE.md names \(folder)/, which does not exist")
        }
    }
}
