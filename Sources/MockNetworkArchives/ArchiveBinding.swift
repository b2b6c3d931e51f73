import Foundation
import MockNetwork

/// How a test uses its archive: what the trait, the XCTest base class and
/// ``MockRegistry/useArchive(at:mode:matching:redaction:latency:fileID:filePath:line:column:)`` pass on.
package struct ArchiveSettings: Sendable {
    /// Record or replay; `nil` reads `MOCKNETWORK_RECORD`.
    package var mode: HTTPArchive.RecordMode?
    package var matching: HTTPArchive.Matching
    package var redaction: HTTPArchive.Redaction
    package var latency: HTTPArchive.Latency

    package init(
        mode: HTTPArchive.RecordMode?, matching: HTTPArchive.Matching, redaction: HTTPArchive.Redaction,
        latency: HTTPArchive.Latency
    ) {
        self.mode = mode
        self.matching = matching
        self.redaction = redaction
        self.latency = latency
    }
}

/// The archive a registry replays or records.
final class ArchiveBinding: RegistryBacking {
    /// The archive's file.
    let file: URL
    /// How failures name the archive: its path, and where it came from when that matters.
    let shownAs: String
    /// Whether requests no handler answers go to the real server and are recorded.
    let isRecording: Bool
    /// What is taken out before the file is written.
    let redaction: HTTPArchive.Redaction
    /// How to add a missing entry, for failures: a sentence without its final full stop.
    let fix: String
    /// The archive as it will be written: what it held (`missing` mode), then the exchanges
    /// recorded so far, redacted as they came; and the secrets redaction found in them (values of
    /// redacted query parameters and JSON keys), cleaned from every entry.
    private let recorded: Locked<(archive: HTTPArchive, learned: Set<String>)>

    /// The archive files being recorded in this process, with who records each.
    private static let writers = Locked<[String: String]>([:])

    /// A binding that records claims `file` for `owner` first: two recorders of one file would
    /// overwrite each other.
    init(
        file: URL, isRecording: Bool, redaction: HTTPArchive.Redaction, fix: String, shownAs: String? = nil,
        holding existing: HTTPArchive = HTTPArchive(), owner: String = ""
    ) throws {
        // Claimed before any property is set: a binding that throws then never runs `deinit`, which
        // would give up the claim of the binding that holds the file.
        if isRecording {
            let path = file.standardizedFileURL.path
            let holder: String? = Self.writers.withLock { writers in
                if let holder = writers[path] { return holder }
                writers[path] = owner
                return nil
            }
            if let holder { throw ArchiveError.archiveInUse(path: file.path, owner: holder) }
        }
        self.file = file
        self.shownAs = shownAs ?? file.path
        self.isRecording = isRecording
        self.redaction = redaction
        self.fix = fix
        recorded = Locked((existing, []))
    }

    package var sendsUnmatchedToNetwork: Bool { isRecording }
    package var unmatchedFix: String { fix }

    package func unmatchedHeadline(_ shown: String) -> String {
        "MockNetwork: no entry for \(shown) in the archive \(shownAs)"
    }

    deinit {
        guard isRecording else { return }
        let path = file.standardizedFileURL.path
        _ = Self.writers.withLock { $0.removeValue(forKey: path) }
    }

    /// Whether `file` lies inside a built bundle (an app, a test bundle, a SwiftPM resource
    /// bundle): a copy that the next build replaces, not the file in the sources.
    static func isInsideBundle(_ file: URL) -> Bool {
        // A folder named like a bundle counts when it is one (it has an Info.plist), or when it lies in
        // SwiftPM's build folder (Linux's `.resources` bundles have no Info.plist): a source tree in
        // a folder such as `dogs.app` is no bundle.
        let components = file.standardizedFileURL.pathComponents.dropLast()
        var folder = URL(fileURLWithPath: "/")
        var inBuildFolder = false
        for component in components {
            folder.appendPathComponent(component)
            if component == ".build" || component == "DerivedData" { inBuildFolder = true }
            guard [".bundle", ".resources", ".xctest", ".app", ".appex"].contains(where: { component.hasSuffix($0) })
            else { continue }
            if inBuildFolder { return true }
            let plists = ["Info.plist", "Contents/Info.plist"].map { folder.appendingPathComponent($0).path }
            if plists.contains(where: { FileManager.default.fileExists(atPath: $0) }) { return true }
        }
        return false
    }

    /// Adds an exchange and writes the archive, redacted. Returns the error writing threw, if any.
    func append(_ entry: HTTPArchive.Entry) -> (any Error)? {
        recorded.withLock { recorded in
            let known = recorded.learned
            let added = HTTPArchive(entries: [entry]).redacted(redaction, learning: &recorded.learned)
            let fresh = recorded.learned.subtracting(known)
            if !fresh.isEmpty {
                // A secret this exchange revealed (a token in its JSON) may be in those recorded before.
                recorded.archive = recorded.archive.cleaned(of: fresh, redaction, includingBodyStrings: false)
            }
            recorded.archive.entries += added.entries
            do {
                try recorded.archive.write(to: file)
                return nil
            } catch {
                return error
            }
        }
    }
}
