import Foundation
import XCTest

/// `ARCHITECTURE.md` matches the tree: every file and folder it names exists, every module and folder
/// of the sources is on the map, and the rules it states that a look at the sources can check hold:
/// which modules each module imports (as the map's "imports" lines say), and what the server's
/// engine uses of the core.
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

    /// The modules of `Sources` (`MockNetwork`, `MockNetworkGraphQL`, …), each a folder there.
    private func modules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path)
            .filter { name in
                var isFolder: ObjCBool = false
                let path = root.appendingPathComponent("Sources").appendingPathComponent(name).path
                return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
            }
            .sorted()
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
        let modules = try modules()
        XCTAssertTrue(modules.contains("MockNetworkGraphQL"), "\(modules)")
        for module in modules {
            XCTAssertTrue(
                text.contains("`Sources/\(module)`"), "Sources has \(module)/, a module ARCHITECTURE.md does not map")
        }
        let folders = modules.map { "Sources/" + $0 }.flatMap {
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
        let places =
            try modules().map { "Sources/" + $0 } + [
                "Tests/MockNetworkTests", "Tests/MockNetworkTests/HAR", ".",
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

    /// The Swift files below `folder`, relative to the root (`Sources/MockNetwork/MockRegistry.swift`).
    private func swiftFiles(below folder: String) -> [String] {
        paths(below: folder).filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
    }

    private func text(of file: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
    }

    /// The modules `file` imports.
    private func imports(of file: String) throws -> Set<String> {
        let pattern = #"^\s*(?:@\w+ )*import (?:(?:struct|class|enum|protocol|typealias|func|var|let) )?(\w+)"#
        return try names(
            in: text(of: file).components(separatedBy: "\n").filter { $0.contains("import ") }.joined(separator: "\n"),
            matching: "(?m)" + pattern)
    }

    func testEveryTopLevelFileOfTheCoreIsANounOnTheMap() throws {
        let top = try XCTUnwrap(map().components(separatedBy: "\n").first { $0.hasPrefix("| top |") }, "no top row")
        let nouns = Set(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources/MockNetwork").path)
                .filter { $0.hasSuffix(".swift") }
                .map { String($0.prefix { $0 != "+" && $0 != "." }) })
        XCTAssertTrue(nouns.contains("MockRegistry"), "\(nouns)")
        for noun in nouns.sorted() {
            XCTAssertTrue(
                top.contains("`\(noun)`"),
                "Sources/MockNetwork/\(noun).swift is a public noun the top row of ARCHITECTURE.md's table does not name"
            )
        }
    }

    /// The testing module and the products that extend the core name each of their files.
    func testEveryFileOfTheTestingModuleAndTheProductsIsOnTheMap() throws {
        let text = try map()
        for module in ["MockNetworkTesting", "MockNetworkGraphQL", "MockNetworkArchives", "MockNetworkApp"] {
            let files = swiftFiles(below: "Sources/" + module)
            XCTAssertGreaterThan(files.count, 5, module)
            for file in files {
                let name = (file as NSString).lastPathComponent
                XCTAssertTrue(text.contains("`\(name)`"), "ARCHITECTURE.md does not name \(file): say what it holds")
            }
        }
    }

    /// What each module may import besides the system's, from the map's lines such as
    /// `MockNetworkArchives    imports MockNetwork, MockNetworkGraphQL` (`imports nothing else`: none).
    private func allowedImports() throws -> [String: Set<String>] {
        var allowed: [String: Set<String>] = [:]
        for line in try map().components(separatedBy: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard words.count >= 2, words[0].hasPrefix("MockNetwork"), words[1] == "imports" else { continue }
            let rest = words.dropFirst(2).joined(separator: " ")
            allowed[words[0]] =
                rest == "nothing else"
                ? [] : Set(rest.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return allowed
    }

    /// Which modules each part of the sources may import, as the map says; the most specific folder
    /// that holds a file decides.
    func testEachFolderImportsOnlyWhatTheMapAllows() throws {
        let system: Set = [
            "Foundation", "FoundationNetworking", "CoreFoundation", "Dispatch", "Darwin", "Glibc", "Musl",
        ]
        let mapped = try allowedImports()
        XCTAssertEqual(Set(mapped.keys), Set(try modules()), "ARCHITECTURE.md's imports lines name every module")
        // The map says what the package means: the core knows no product, a product builds on what is
        // below it (Package.swift's dependencies, and the test frameworks for the testing module).
        let core = "MockNetwork", graphQL = "MockNetworkGraphQL", archives = "MockNetworkArchives"
        let meant: [String: Set<String>] = [
            core: [],
            graphQL: [core],
            archives: [core, graphQL],
            "MockNetworkApp": [core, graphQL, archives],
            "MockNetworkTesting": [core, graphQL, archives, "XCTest", "Testing"],
            "MockNetworkServer": [core],
            "MockNetworkBenchmark": [core, graphQL, archives, "MockNetworkServer"],
        ]
        XCTAssertEqual(mapped, meant, "ARCHITECTURE.md's imports lines")
        // The server's engine and parser, more narrowly than their module; then each module.
        var rules: [(folder: String, allowed: Set<String>)] = [
            ("Sources/MockNetworkServer/Engine", ["Foundation", "Dispatch", "Darwin", "Glibc", "Musl", "MockNetwork"]),
            ("Sources/MockNetworkServer/HTTP", ["Foundation", "MockNetwork"]),
        ]
        rules += mapped.sorted { $0.key < $1.key }.map { ("Sources/" + $0.key, system.union($0.value)) }
        var checked = 0
        for file in swiftFiles(below: "Sources") {
            guard let rule = rules.first(where: { file.hasPrefix($0.folder + "/") }) else { continue }
            checked += 1
            let extra = try imports(of: file).subtracting(rule.allowed)
            XCTAssertTrue(
                extra.isEmpty,
                "\(file) imports \(extra.sorted().joined(separator: ", ")), which ARCHITECTURE.md does not allow "
                    + "\(rule.folder) (it may import \(rule.allowed.sorted().joined(separator: ", ")))")
        }
        XCTAssertGreaterThan(checked, 100)
    }

    /// The server's engine knows nothing of registries: of the core, `Engine/` uses `Locked` and
    /// `HTTP/` `ReasonPhrases`, nothing else (a name of the core's in a comment does not count).
    func testTheServersEngineAndHTTPUseOnlyWhatTheMapAllowsOfTheCore() throws {
        let declared = try swiftFiles(below: "Sources/MockNetwork").map { try text(of: $0) }.joined(separator: "\n")
        let core = try names(
            in: declared,
            matching: #"(?m)^(?:public|package) (?:final class|class|struct|enum|protocol|actor|typealias) (\w+)"#)
        XCTAssertTrue(core.isSuperset(of: ["MockRegistry", "Locked", "ReasonPhrases", "MockResponse"]), "\(core)")
        let rules: [(folder: String, allowed: Set<String>)] = [
            ("Sources/MockNetworkServer/Engine", ["Locked"]),
            ("Sources/MockNetworkServer/HTTP", ["ReasonPhrases"]),
        ]
        for rule in rules {
            for file in swiftFiles(below: rule.folder) {
                let code = try text(of: file).components(separatedBy: "\n")
                    .map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line }
                    .joined(separator: "\n")
                let used = try names(in: code, matching: #"\b([A-Z]\w*)\b"#).intersection(core)
                let extra = used.subtracting(rule.allowed)
                XCTAssertTrue(
                    extra.isEmpty,
                    "\(file) uses the core's \(extra.sorted().joined(separator: ", ")): ARCHITECTURE.md lets "
                        + "\(rule.folder) use \(rule.allowed.sorted().joined(separator: ", ")) only")
            }
        }
    }
}
