import Dispatch
import Foundation
import MockNetwork
import MockNetworkArchives

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps a launched registry's ``MockLaunchReport`` up to date in its file: written at launch,
/// again within ``interval`` of every change (a request logged, answered or ended, a failure), and
/// once more when the process exits, each time atomically (a reader never sees half a file).
///
/// It looks for changes on a timer rather than being told of them: the request path has no hook for
/// a request's end, and a look costs one lock and a few counts. It looks for as long as the registry
/// or its session is alive; once both are gone it writes a last time and stops.
package final class LaunchReportWriter: Sendable {
    /// How often a change is looked for.
    static let interval = DispatchTimeInterval.milliseconds(20)
    /// Bodies in the report are cut to this many bytes.
    static let bodyLimit = 64 * 1024

    /// What tells one state of the registry from the next, without copying its log.
    private struct Signature: Equatable {
        let logged: Int
        let failures: Int
        let inFlight: Set<Int>
    }

    /// Where the report goes, and what was last written there.
    private struct Output {
        var file: URL
        var written: Signature?
    }

    private let settings: LaunchSettings
    private let redaction: HTTPArchive.Redaction
    private let activity: @Sendable ((Int, Int, Set<Int>) -> Bool) -> MockRegistry.Activity?
    private let output: Locked<Output>
    /// What keeps the writer looking: the registry, or the session the app kept of it.
    private let watched: Watched

    private struct Watched: Sendable {
        weak var registry: MockRegistry?
        weak var session: URLSession?

        var isAlive: Bool { registry != nil || session != nil }
    }

    private static let queue = DispatchQueue(label: "MockNetwork.launch-report")
    /// The writers at work in this process, for the last write at exit.
    private static let live = Locked<[LaunchReportWriter]>([])
    /// Installs the last write at exit, once.
    private static let exitHook: Void = { atexit { LaunchReportWriter.writeAll() } }()

    private init(registry: MockRegistry, settings: LaunchSettings, file: URL, redaction: HTTPArchive.Redaction) {
        self.settings = settings
        self.redaction = redaction
        activity = registry.activityReader()
        watched = Watched(registry: registry, session: registry.session)
        output = Locked(Output(file: file, written: nil))
    }

    /// Whether a writer of the report at `file` is looking for changes now (for MockNetwork's tests).
    package static func isLooking(at file: URL) -> Bool {
        live.withLock { writers in writers.contains { $0.output.withLock { $0.file.path } == file.path } }
    }

    /// Writes `registry`'s report to `file` now, and keeps it up to date from then on.
    static func start(
        watching registry: MockRegistry, settings: LaunchSettings, file: URL, redaction: HTTPArchive.Redaction
    ) {
        let writer = LaunchReportWriter(registry: registry, settings: settings, file: file, redaction: redaction)
        writer.writeIfChanged()
        live.withLock { $0.append(writer) }
        _ = exitHook
        writer.scheduleLook()
    }

    /// Writes `report` (a launch that failed) to `file`, once.
    static func write(_ report: MockLaunchReport, to file: URL) {
        guard let data = try? report.json() else { return }
        _ = save(data, to: file)
    }

    private func scheduleLook() {
        Self.queue.asyncAfter(deadline: .now() + Self.interval) { self.look() }
    }

    private func look() {
        writeIfChanged()
        guard watched.isAlive else {
            // The app let its registry and session go: nothing more can change.
            Self.live.withLock { $0.removeAll { $0 === self } }
            return
        }
        scheduleLook()
    }

    private static func writeAll() {
        for writer in live.withLock({ $0 }) { writer.writeIfChanged() }
    }

    /// Writes the report when the registry changed since the last write.
    private func writeIfChanged() {
        output.withLock { output in
            let written = output.written
            guard
                let seen = activity({ Signature(logged: $0, failures: $1, inFlight: $2) == written })
            else { return }
            let signature = Signature(logged: seen.logged, failures: seen.failures.count, inFlight: seen.inFlight)
            let report = Self.report(
                settings, log: seen.log, failures: seen.failures, inFlight: seen.inFlight.count, redaction)
            // Once written, a report whose folder was removed (its reader is done with it) is not
            // written again: the folder is made only for the first write.
            guard let data = try? report.json(),
                let file = Self.save(data, to: output.file, makingFolder: output.written == nil)
            else { return }
            output.file = file
            output.written = signature
        }
    }

    /// Writes `data` to `file` atomically, making its folder if needed (with `makingFolder`; without, a
    /// folder that is gone writes nothing and returns `nil`). A file the app cannot write
    /// (a host path, on a device) is replaced by one in the app's temporary folder, which the app's
    /// log names. Returns the file written, `nil` when none could be.
    private static func save(_ data: Data, to file: URL, makingFolder: Bool = true) -> URL? {
        if !makingFolder, !FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path) { return nil }
        func attempt(_ file: URL) -> (any Error)? {
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file, options: .atomic)
                return nil
            } catch {
                return error
            }
        }
        guard let error = attempt(file) else { return file }
        let fallback = FileManager.default.temporaryDirectory.appendingPathComponent("MockNetwork")
            .appendingPathComponent(file.lastPathComponent)
        let written = fallback != file && attempt(fallback) == nil
        FileHandle.standardError.write(
            Data(
                ("MockNetwork: cannot write the launch report to \(file.path) (\(error.localizedDescription)); "
                    + (written
                        ? "writing it to \(fallback.path), in the app's own container, instead.\n"
                        : "it is not written.\n"))
                    .utf8))
        return written ? fallback : nil
    }

    /// The report of a registry whose log, failures and requests in flight are these.
    private static func report(
        _ settings: LaunchSettings, log: [RecordedRequest], failures: [MockFailure], inFlight: Int,
        _ redaction: HTTPArchive.Redaction
    ) -> MockLaunchReport {
        // As the failing-test traffic report does: redacted as recordings are, one entry per request.
        let entries = HTTPArchive(
            entries: log.compactMap { MockRegistry.entry(for: $0, unanswered: "still waiting for its answer") }
        ).redacted(redaction).entries
        // An unmatched request's failure starts with the line its URLError's message starts with.
        var unmatchedFailures: [(line: String, message: String)] = []
        var others: [String] = []
        for failure in failures {
            let line = String(failure.message.prefix { $0 != "\n" })
            if line.hasPrefix("MockNetwork: no handler for ") || line.hasPrefix("MockNetwork: no entry for ") {
                unmatchedFailures.append((String(line.dropLast(line.hasSuffix(".") ? 1 : 0)), failure.message))
            } else {
                others.append(failure.message)
            }
        }
        var requests: [MockLaunchReport.Request] = []
        var unmatched: [MockLaunchReport.Unmatched] = []
        for (recorded, entry) in zip(log, entries) {
            let body = entry.request.body.flatMap { body -> String? in
                guard !body.data.isEmpty, body.text != nil else { return nil }
                return String(decoding: body.data.prefix(bodyLimit), as: UTF8.self)
            }
            requests.append(
                MockLaunchReport.Request(
                    method: entry.request.method, url: entry.request.url,
                    status: entry.response.status == 0 ? nil : entry.response.status, error: entry.error, body: body))
            guard case .failure(let text) = recorded.outcome,
                let index = unmatchedFailures.firstIndex(where: { text.contains($0.line) })
            else { continue }
            let failure = unmatchedFailures.remove(at: index)
            unmatched.append(
                MockLaunchReport.Unmatched(
                    method: entry.request.method, url: entry.request.url, message: failure.message))
        }
        // Failures of requests no longer in the log stay in the report, as failures.
        return MockLaunchReport(
            settings: settings, requests: requests, unmatched: unmatched,
            failures: others + unmatchedFailures.map(\.message), inFlight: inFlight)
    }
}
