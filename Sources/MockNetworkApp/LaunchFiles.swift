import Foundation
import MockNetwork

/// The launch reports MockNetwork chose a file for (`mockNetwork(scenario:)` and
/// `mockNetwork(archive:)` without `report:`), removed when the test process exits unless the
/// report says something failed (a launch error, a failure, a request still in flight): those stay
/// for the failing test's reader. A report the test named itself is the test's to keep.
package enum LaunchFiles {
    private static let chosen = Locked<[URL]>([])

    /// Notes a report file MockNetwork chose, and makes sure the process removes it at exit.
    static func note(_ file: URL) {
        let first = chosen.withLock { files in
            defer { files.append(file) }
            return files.isEmpty
        }
        if first { atexit { LaunchFiles.removeClean() } }
    }

    /// Removes the noted reports that show nothing wrong (and those never written); keeps the rest.
    package static func removeClean() {
        let files = chosen.withLock { files in
            defer { files.removeAll() }
            return files
        }
        for file in files {
            if let report = try? MockLaunchReport(contentsOf: file),
                report.launchError != nil || !report.failures.isEmpty || !report.unmatched.isEmpty
                    || report.inFlight > 0
            {
                continue
            }
            try? FileManager.default.removeItem(at: file)
        }
    }
}
