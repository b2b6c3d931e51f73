import Foundation
import MockNetwork
import MockNetworkArchives

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An archive a launch names: a HAR file in the app's bundle, or a path. Replayed or recorded by
/// ``MockRegistry/useArchive(at:mode:matching:redaction:latency:fileID:filePath:line:column:)``, so
/// entries answer in their recorded order, and recording goes through the same redaction.
enum LaunchArchive {
    /// Replays (or records, as `MOCKNETWORK_RECORD` in `environment` says) the archive `name` on `registry`.
    ///
    /// - Throws: ``MockLaunchError/unknownArchive(_:archives:bundle:)`` for an archive to replay that
    ///   does not exist, ``MockLaunchError/recordingNeedsPath(_:mode:)`` to record into a bundle name,
    ///   and what `useArchive(at:)` throws (a broken archive, a bad `MOCKNETWORK_RECORD`).
    static func use(
        _ name: String, in bundle: Bundle, environment: [String: String], redaction: HTTPArchive.Redaction,
        on registry: MockRegistry
    ) throws {
        let mode = try HTTPArchive.RecordMode.fromEnvironment(environment)
        let file: URL
        // A name in the bundle, or an absolute path (a recording's file, which outlives the build);
        // a relative path (`../…`) would be read from wherever the app runs, outside its bundle.
        if !LaunchScenario.isName(name) && !name.hasPrefix("/") {
            throw MockLaunchError.unknownArchive(name, archives: archives(in: bundle), bundle: bundle.bundleURL.path)
        }
        if isPath(name) {
            file = URL(fileURLWithPath: name).standardizedFileURL
            if mode == .never && !FileManager.default.fileExists(atPath: file.path) {
                throw MockLaunchError.unknownArchive(
                    file.path, archives: archives(in: bundle), bundle: bundle.bundleURL.path)
            }
        } else {
            let found = HTTPArchive.file(named: name, in: bundle)
            // A bundle's copy can be replayed; a recording needs a file that outlives the build.
            if mode == .rewrite || mode == .missing || (mode == .once && found == nil) {
                throw MockLaunchError.recordingNeedsPath(name, mode: mode.rawValue)
            }
            guard let found else {
                throw MockLaunchError.unknownArchive(
                    name, archives: archives(in: bundle), bundle: bundle.bundleURL.path)
            }
            file = found
        }
        try registry.useArchive(at: file, mode: mode, redaction: redaction)
    }

    /// Whether `name` is a file path rather than a name in the bundle.
    static func isPath(_ name: String) -> Bool {
        name.contains("/")
    }

    /// The archives in `bundle`, where ``HTTPArchive/file(named:in:)`` looks: their names, without `.har`.
    static func archives(in bundle: Bundle) -> [String] {
        guard let root = bundle.resourceURL else { return [] }
        var names: Set<String> = []
        for folder in ["", "Archives", "Fixtures", "Fixtures/Archives"] {
            let path = root.appendingPathComponent(folder).path
            for file in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where file.hasSuffix(".har")
            {
                names.insert(String(file.dropLast(4)))
            }
        }
        return names.sorted()
    }
}
