// With the package's `Archives` trait (on by default).
#if Archives
    import Foundation
    import MockNetwork
    import MockNetworkArchives

    /// Where a test's archive lives, and how a registry takes it: shared by the trait and the
    /// XCTest base class.
    package enum ArchiveSupport {
        /// `Archives/<name>.har` in the folder of the test's source file: recordings land in the
        /// source tree, to be committed, not in the build products.
        static func file(named name: String, nextTo sourceFile: String) -> URL {
            URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
                .appendingPathComponent("Archives").appendingPathComponent(HTTPArchive.fileName(name))
        }

        /// Replays or records the archive `name` next to `sourceFile`. When that file does not exist
        /// and nothing is to be recorded, an archive of that name in `bundle` is replayed instead
        /// (for tests that run where the source tree is not, such as on a device).
        static func attach(
            _ registry: MockRegistry, name: String, sourceFile: String, bundle: Bundle?, settings: ArchiveSettings,
            testName: String?, location: MockNetwork.SourceLocation
        ) throws {
            try registry.useArchive(
                at: file(named: name, nextTo: sourceFile), settings, testName: testName,
                fallback: bundle.flatMap { HTTPArchive.file(named: name, in: $0) }, location: location)
        }

        /// A `swift test --filter` pattern for a Swift Testing test: its function's name.
        static func filter(forTest name: String) -> String {
            String(name.prefix { $0 != "(" })
        }

        /// A `swift test --filter` pattern for an XCTest test (`Class/testMethod`), from its `name`:
        /// `-[Class testMethod]` on Apple platforms, `Class.testMethod` elsewhere.
        package static func filter(forXCTest name: String) -> String {
            var text = name
            if text.hasPrefix("-["), text.hasSuffix("]") {
                // Apple's `-[Module.Class testX]`: the same `Class/testX` as on Linux.
                let parts = text.dropFirst(2).dropLast().split(separator: " ", maxSplits: 1)
                let type = parts.first.map { $0.split(separator: ".", maxSplits: 1).last ?? $0 } ?? ""
                text = parts.count == 2 ? "\(type)/\(parts[1])" : String(type)
            } else if let dot = text.lastIndex(of: ".") {
                // Linux's `Class.testX`.
                text.replaceSubrange(dot...dot, with: "/")
            }
            return text
        }
    }
#endif
