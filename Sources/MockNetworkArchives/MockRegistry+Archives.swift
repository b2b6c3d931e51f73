import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    // MARK: Replaying

    /// Answers requests from `archive`: each entry answers the requests `matching` says are its
    /// own, with its status, headers and body. Entries for the same request answer in the order
    /// they were recorded, and the last one answers any request after that. An entry with no
    /// response (status 0) fails its request with `URLError(.networkConnectionLost)`.
    ///
    /// A GraphQL entry answers its operation (name, type and variables), not every request to the
    /// one URL an app sends its operations to; see ``HTTPArchive/Matching``.
    ///
    /// Handlers registered as usual win over an archive's entries, however they match, so a test
    /// can replace one answer of a recording.
    ///
    /// - Parameters:
    ///   - archive: the archive, e.g. `try HTTPArchive(contentsOf: url)`.
    ///   - matching: which requests an entry answers; method and full URL unless given.
    ///   - latency: how long each entry takes to answer; at once unless given.
    ///   - fileID: where the archive is replayed from, for failures; leave the default.
    ///   - filePath: where the archive is replayed from; leave the default.
    ///   - line: where the archive is replayed from; leave the default.
    ///   - column: where the archive is replayed from; leave the default.
    /// - Throws: `MockNetworkError.invalidStatusCode(_:)` for an entry whose status is no HTTP status.
    public func replay(
        _ archive: HTTPArchive, matching: HTTPArchive.Matching = .methodAndURL, latency: HTTPArchive.Latency = .none,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        // Entries for the same request become one route that answers them in order.
        var groups: [(match: RequestMatch, responses: [MockResponse])] = []
        var positions: [String: Int] = [:]
        for entry in archive.entries {
            let delay = latency.delay(for: entry)
            // One answer, or one per operation of a GraphQL batch (`ArchiveGraphQL.swift`).
            for (match, answer) in try matching.answers(for: entry) {
                let response = delay > 0 ? answer.delayed(by: delay) : answer
                // Entries that answer the same requests answer them in the order recorded.
                let key = match.groupingKey
                if let position = positions[key] {
                    groups[position].responses.append(response)
                } else {
                    positions[key] = groups.count
                    groups.append((match, [response]))
                }
            }
        }
        for group in groups {
            addBacking(group.match, answers: group.responses, at: location)
        }
    }

    static func mockResponse(for entry: HTTPArchive.Entry) throws -> MockResponse {
        let response = entry.response
        guard response.status != 0 else {
            return .failure(
                URLError(
                    .networkConnectionLost,
                    userInfo: [
                        NSLocalizedDescriptionKey:
                            "MockNetwork: the archive's entry for \(entry.request.method) \(entry.request.url) has no "
                            + "response" + (entry.error.map { " (\($0))" } ?? "") + "."
                    ]))
        }
        // The archive holds the body as delivered: decoded, whole. Headers about the bytes on the
        // wire would describe a body the client does not get; HTTP/2 pseudo-headers are no fields.
        let dropped: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]
        var headers: [String: String] = [:]
        var names: [String: String] = [:]  // lowercased → as first written
        for header in response.headers {
            let lower = header.name.lowercased()
            guard !header.name.hasPrefix(":"), !dropped.contains(lower) else { continue }
            if let name = names[lower], let value = headers[name] {
                headers[name] = value + ", " + header.value
            } else {
                names[lower] = header.name
                headers[header.name] = header.value
            }
        }
        if names["content-type"] == nil, !response.body.mimeType.isEmpty {
            headers["Content-Type"] = response.body.mimeType
        }
        // The archive's redirects are its own entries: the client follows them as recorded.
        return try MockResponse(status: response.status, headers: headers, body: response.body.data)
            .followingRedirects(true)
    }

    // MARK: Recording and replaying a file

    /// Replays the archive at `file`, or records it from the real server, as `mode` says.
    ///
    /// - `.never`: replay; a request the archive does not hold fails the test with a message that
    ///   names the archive and the command that records it.
    /// - `.once`: record when the file does not exist, else replay.
    /// - `.rewrite`: record afresh.
    /// - `.missing`: replay what the file holds, record what it lacks and add it after.
    ///
    /// While recording, requests no handler answers go to the real network through a session
    /// without the mock protocol; the client gets the real response, and the exchange is added to
    /// the file (redacted) as it completes. Redirects are followed on the network, and the final
    /// response is recorded for the request.
    ///
    /// A file inside a built bundle (`Bundle.module.url(forResource:…)`) is the copy a build made:
    /// it can be replayed, and recording into it throws
    /// ``ArchiveError/archiveInBundle(path:)``. Record the file in your source tree.
    ///
    /// - Parameters:
    ///   - file: the archive's file, e.g. next to the test's source.
    ///   - mode: record or replay; `nil` (the default) reads `MOCKNETWORK_RECORD`.
    ///   - matching: which requests an entry answers; method and full URL unless given.
    ///     The query parameters `redaction` removes are left out of the comparison.
    ///   - redaction: what is taken out before anything is written.
    ///   - latency: how long each replayed entry takes to answer; at once unless given.
    ///   - fileID: where the archive is used from, for failures; leave the default.
    ///   - filePath: where the archive is used from; leave the default.
    ///   - line: where the archive is used from; leave the default.
    ///   - column: where the archive is used from; leave the default.
    /// - Throws: ``HTTPArchive/LoadError`` for a broken archive, ``ArchiveError/missingArchive(path:command:)``
    ///   when there is nothing to replay, ``ArchiveError/invalidRecordMode(_:)`` for a bad
    ///   `MOCKNETWORK_RECORD`, ``ArchiveError/archiveInUse(path:owner:)`` when another registry
    ///   records the file, ``ArchiveError/archiveInBundle(path:)`` to record into a bundle's copy.
    public func useArchive(
        at file: URL, mode: HTTPArchive.RecordMode? = nil, matching: HTTPArchive.Matching = .methodAndURL,
        redaction: HTTPArchive.Redaction = .standard, latency: HTTPArchive.Latency = .none,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) throws {
        try useArchive(
            at: file, ArchiveSettings(mode: mode, matching: matching, redaction: redaction, latency: latency),
            testName: nil, location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// ``useArchive(at:mode:matching:redaction:latency:fileID:filePath:line:column:)`` for a test
    /// whose name goes into the record commands, replaying `fallback` (an archive in a bundle) when
    /// `file` does not exist and nothing is to be recorded.
    package func useArchive(
        at file: URL, _ settings: ArchiveSettings, testName: String?, fallback: URL? = nil,
        location: SourceLocation
    ) throws {
        let mode = try settings.mode ?? HTTPArchive.RecordMode.fromEnvironment()
        let exists = FileManager.default.fileExists(atPath: file.path)
        func command(_ mode: HTTPArchive.RecordMode) -> String {
            "\(HTTPArchive.RecordMode.environmentVariable)=\(mode.rawValue) swift test"
                + (testName.map { " --filter '\($0)'" } ?? "")
        }
        let owner = testName.map { "the test \($0)" } ?? "the registry set up at \(location)"
        var matching = settings.matching.ignoringQueryParameters(settings.redaction.queryParameters)
        matching.redactedValue = settings.redaction.replacement
        let inBundle = ArchiveBinding.isInsideBundle(file)
        // An archive this registry used before lets go of its file first.
        backing = nil
        let recordsAfresh = mode == .rewrite || (mode != .never && !exists)
        if inBundle && (recordsAfresh || mode == .missing) { throw ArchiveError.archiveInBundle(path: file.path) }
        let recordHere =
            "record it from the real server, which adds it to this test's archive and keeps the rest: \(command(.missing))"
        if recordsAfresh {
            let binding = try ArchiveBinding(
                file: file, isRecording: true, redaction: settings.redaction, fix: recordHere, owner: owner)
            try HTTPArchive().write(to: file)
            backing = binding
            return
        }
        if mode == .missing {
            // Replays what the file holds; what it lacks goes to the server and is added after it.
            let existing = try HTTPArchive(contentsOf: file)
            let binding = try ArchiveBinding(
                file: file, isRecording: true, redaction: settings.redaction, fix: recordHere, holding: existing,
                owner: owner)
            try replay(existing, matching: matching, latency: settings.latency, at: location)
            backing = binding
            return
        }
        guard let source = exists ? file : fallback else {
            throw ArchiveError.missingArchive(path: file.path, command: command(.once))
        }
        try replay(HTTPArchive(contentsOf: source), matching: matching, latency: settings.latency, at: location)
        // Bound, so that a missing entry names the archive and how to add it to the file in the sources.
        let (fix, shownAs): (String, String?) =
            if !exists {
                (
                    "record it from the real server where the sources are: \(command(.missing)) adds it to "
                        + "\(file.path); the bundle gets it when the tests are built again",
                    "\(source.path) (from the bundle; its source is \(file.path))"
                )
            } else if inBundle {
                (
                    "this file is the copy a build put in the bundle, so recording into it would be lost. "
                        + "Record the archive in your source tree (useArchive(at:) with its path there, then "
                        + "\(command(.missing))) and build again",
                    "\(file.path) (a copy in a built bundle)"
                )
            } else {
                (recordHere, nil)
            }
        let binding = try ArchiveBinding(
            file: source, isRecording: false, redaction: settings.redaction, fix: fix, shownAs: shownAs)
        backing = binding
    }

    /// ``replay(_:matching:latency:fileID:filePath:line:column:)`` at a location already made.
    private func replay(
        _ archive: HTTPArchive, matching: HTTPArchive.Matching, latency: HTTPArchive.Latency,
        at location: SourceLocation
    ) throws {
        try replay(
            archive, matching: matching, latency: latency, fileID: location.fileID, filePath: location.filePath,
            line: location.line, column: location.column)
    }

    /// The archive this registry replays or records, if any.
    public var archiveFile: URL? {
        (backing as? ArchiveBinding)?.file
    }
}
