import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A failing test's traffic, as the report of its failure attaches it: a HAR file's bytes.
package struct TrafficReport: Sendable {
    /// The archive, as JSON.
    package let json: Data
    /// How many exchanges it holds.
    package let count: Int
    /// How many earlier requests were left out to keep it small.
    package let omitted: Int

    /// At most this many exchanges, the latest.
    package static let entryLimit = 100
    /// Each body is cut to this many bytes.
    package static let bodyLimit = 64 * 1024
    /// Earlier exchanges are left out once the bodies kept pass this many bytes.
    package static let totalLimit = 1024 * 1024

    /// A registry's choice of ``MockRegistry/attachesTrafficOnFailure``, where the registry keeps it.
    struct Setting: Sendable {
        let attached: Bool
    }
}

extension TrafficReport {
    /// The variable that turns the reports off for a whole run: `MOCKNETWORK_ATTACH_TRAFFIC=0`.
    package static let environmentVariable = "MOCKNETWORK_ATTACH_TRAFFIC"

    /// Whether reports are on unless a registry says otherwise: yes, but for `0`, `no`, `off` or
    /// `false` in ``environmentVariable`` (read once).
    static let onByEnvironment: Bool = {
        let value = ProcessInfo.processInfo.environment[environmentVariable]?.lowercased()
        return !["0", "no", "off", "false"].contains(value ?? "")
    }()
}

extension MockRegistry {
    /// Whether the report of a failing test gets this registry's traffic: a HAR file of its
    /// requests and answers, redacted as recordings are (on by default). `MockNetworkTestCase` and
    /// the `.mockNetwork` trait attach it when the test fails, never when it passes: with Swift
    /// Testing as an `Attachment` (saved where `swift test --attachments-path` says; Xcode shows it
    /// in the test report), with XCTest as an `XCTAttachment` on Apple platforms, and on Linux as a
    /// file whose path the test's first MockNetwork failure (or the log) names.
    ///
    /// Turn it off for one test here, for a suite in its defaults (`registerDefaults`), or for a
    /// whole run with `MOCKNETWORK_ATTACH_TRAFFIC=0`. The file holds the latest 100 requests, each
    /// body cut to its first 64 KB, and leaves out earlier ones once the bodies pass 1 MB.
    public var attachesTrafficOnFailure: Bool {
        get { setting(TrafficReport.Setting.self)?.attached ?? TrafficReport.onByEnvironment }
        set { set(TrafficReport.Setting(attached: newValue)) }
    }

    /// The test's traffic for the report of its failure, bounded: the latest
    /// ``TrafficReport/entryLimit`` requests (one still unanswered too, as status 0), redacted as the
    /// registry's archive is (else as recordings are by default), then each body cut to
    /// ``TrafficReport/bodyLimit`` bytes, and earlier exchanges left out once the bodies kept pass
    /// ``TrafficReport/totalLimit``. `nil` when the test made no request.
    package func trafficReport() -> TrafficReport? {
        let log = requests
        guard !log.isEmpty else { return nil }
        let redaction = (backing as? ArchiveBinding)?.redaction ?? .standard
        let exchanges = switchedExchanges
        let latest = log.suffix(TrafficReport.entryLimit).compactMap {
            Self.entry(for: $0, unanswered: "still unanswered when the test ended", exchanges: exchanges)
        }
        // Redacted whole, before any cut: a cut JSON body is no JSON, and its secrets would stay.
        // The header fields the redaction names keep their names, with their values masked: a
        // failure about a missing token reads differently from one about a wrong token. (An archive
        // drops them: replayed, a masked `Set-Cookie` would set a cookie.)
        var masking = redaction
        masking.headers = []
        let redacted = HTTPArchive(entries: Self.masking(redaction, in: latest)).redacted(masking).entries
        var kept: [HTTPArchive.Entry] = []
        var bytes = 0
        for var entry in redacted.reversed() {
            if let body = entry.request.body?.data { entry.request.body?.data = Self.cut(body) }
            entry.response.body.data = Self.cut(entry.response.body.data)
            // A socket's latest messages, each cut as a body is.
            entry.webSocketMessages = entry.webSocketMessages.map { messages in
                messages.suffix(TrafficReport.entryLimit).map { message in
                    var message = message
                    if message.data.utf8.count > TrafficReport.bodyLimit {
                        message.data = String(
                            decoding: message.data.utf8.prefix(TrafficReport.bodyLimit), as: UTF8.self)
                    }
                    return message
                }
            }
            let size =
                (entry.request.body?.data.count ?? 0) + entry.response.body.data.count
                + (entry.webSocketMessages ?? []).reduce(0) { $0 + $1.data.utf8.count }
            if !kept.isEmpty, bytes + size > TrafficReport.totalLimit { break }
            bytes += size
            kept.append(entry)
        }
        let archive = HTTPArchive(entries: kept.reversed())
        guard let json = try? archive.json() else { return nil }
        return TrafficReport(json: json, count: kept.count, omitted: log.count - kept.count)
    }

    /// `entries` with the values of the header fields `redaction` names replaced by its replacement.
    private static func masking(_ redaction: HTTPArchive.Redaction, in entries: [HTTPArchive.Entry])
        -> [HTTPArchive.Entry]
    {
        let names = Set(redaction.headers.map { $0.lowercased() })
        guard !names.isEmpty else { return entries }
        func mask(_ headers: [HTTPArchive.Header]) -> [HTTPArchive.Header] {
            headers.map {
                names.contains($0.name.lowercased()) ? HTTPArchive.Header($0.name, redaction.replacement) : $0
            }
        }
        // In place: built anew in `map`'s closure, an entry lost its socket's messages (Swift 6.3,
        // debug build; measured), though the closure's copy still had them.
        var masked = entries
        for index in masked.indices {
            masked[index].request.headers = mask(masked[index].request.headers)
            masked[index].response.headers = mask(masked[index].response.headers)
        }
        return masked
    }

    private static func cut(_ data: Data) -> Data {
        guard data.count > TrafficReport.bodyLimit else { return data }
        return data.prefix(TrafficReport.bodyLimit)
    }
}
