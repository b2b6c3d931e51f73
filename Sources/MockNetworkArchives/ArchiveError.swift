import Foundation
import MockNetwork

/// Errors of using an archive: a mode, a file or a recording MockNetworkArchives cannot use.
public enum ArchiveError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// `MOCKNETWORK_RECORD` holds a value that is not a ``HTTPArchive/RecordMode``.
    case invalidRecordMode(String)
    /// An archive to replay that does not exist; `command` records it.
    case missingArchive(path: String, command: String)
    /// Two registries would record into the same archive file at once; `owner` is the one already recording.
    case archiveInUse(path: String, owner: String)
    /// An archive to record that is the copy inside a built bundle, which the next build replaces.
    case archiveInBundle(path: String)

    /// What went wrong, and how to fix it.
    public var description: String {
        switch self {
        case .invalidRecordMode(let text):
            "MockNetwork: MOCKNETWORK_RECORD=\(text) is not a record mode. Use none (replay only, the default), "
                + "once (record archives that do not exist yet), rewrite (record them afresh) or missing (record "
                + "only the requests an archive lacks)."
        case .missingArchive(let path, let command):
            "MockNetwork: there is no archive at \(path) to replay. Record it from the real server: \(command)"
        case .archiveInUse(let path, let owner):
            "MockNetwork: \(owner) is already recording the archive \(path); recording into it here too would "
                + "overwrite one with the other. Give each test an archive of its own, or record them one at a time."
        case .archiveInBundle(let path):
            "MockNetwork: \(path) is the copy of an archive that a build put in a bundle; a recording there "
                + "would be replaced by the next build. Record the archive in your source tree: pass its path there "
                + "to useArchive(at:), or use the .mockNetwork(archive:bundle:) trait or MockNetworkTestCase's "
                + "useArchive(_:bundle:), which record next to the test and replay from the bundle on a device."
        }
    }

    /// The ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
