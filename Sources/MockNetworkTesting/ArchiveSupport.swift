import Foundation
import MockNetwork

/// Where a test's archive lives, and how a registry takes it: shared by the trait and the
/// XCTest base class.
enum ArchiveSupport {
    /// `Archives/<name>.har` in the folder of the test's source file: recordings land in the
    /// source tree, to be committed, not in the build products.
    static func file(named name: String, nextTo sourceFile: String) -> URL {
        let file = (name as NSString).pathExtension.isEmpty ? name + ".har" : name
        return URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
            .appendingPathComponent("Archives").appendingPathComponent(file)
    }

    /// Replays or records the archive `name` next to `sourceFile`. When that file does not exist
    /// and nothing is to be recorded, an archive of that name in `bundle` is replayed instead
    /// (for tests that run where the source tree is not, such as on a device).
    static func attach(
        _ registry: MockRegistry, name: String, sourceFile: String, bundle: Bundle?, mode: HTTPArchive.RecordMode?,
        matching: HTTPArchive.Matching, redaction: HTTPArchive.Redaction, testName: String?,
        location: MockNetwork.SourceLocation
    ) throws {
        let file = file(named: name, nextTo: sourceFile)
        let resolvedMode = try mode ?? HTTPArchive.RecordMode.fromEnvironment()
        if resolvedMode == .never, !FileManager.default.fileExists(atPath: file.path), let bundle,
            HTTPArchive.file(named: name, in: bundle) != nil
        {
            let archive = try HTTPArchive(named: name, in: bundle)
            try registry.replay(
                archive, matching: matching.ignoringQueryParameters(redaction.queryParameters),
                fileID: location.fileID, filePath: location.filePath, line: location.line, column: location.column)
            return
        }
        try registry.useArchive(
            at: file, mode: resolvedMode, matching: matching, redaction: redaction, testName: testName,
            location: location)
    }

    /// A `swift test --filter` pattern for a Swift Testing test: its function's name.
    static func filter(forTest name: String) -> String {
        String(name.prefix { $0 != "(" })
    }

    /// A `swift test --filter` pattern for an XCTest test (`Class/testMethod`), from its `name`:
    /// `-[Class testMethod]` on Apple platforms, `Class.testMethod` elsewhere.
    static func filter(forXCTest name: String) -> String {
        var text = name
        if text.hasPrefix("-["), text.hasSuffix("]") {
            text = String(text.dropFirst(2).dropLast()).replacingOccurrences(of: " ", with: "/")
        } else if let dot = text.lastIndex(of: ".") {
            text.replaceSubrange(dot...dot, with: "/")
        }
        return text
    }
}
