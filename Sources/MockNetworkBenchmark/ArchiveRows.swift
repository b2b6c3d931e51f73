// Rows 10 to 10b: a HAR archive of 20,000 entries, loaded and replayed.

import Foundation
import MockNetwork
import MockNetworkArchives

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Rows 10 to 10b. A HAR archive with 20,000 entries for one path: replay() under .methodAndPath
/// (entries grouped into one route, in recorded order) and, for comparison, .methodAndURL; then
/// every entry requested in recorded order.
func archiveRows() async throws {
    let entryCount = 20_000
    guard let page = URL(string: "https://api.example.com/page") else {
        throw BenchmarkError(description: "no page URL")
    }
    let archive = HTTPArchive(
        entries: (0..<entryCount).map { index in
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: page.absoluteString + "?n=\(index)"),
                response: HTTPArchive.Response(status: 200, body: HTTPArchive.Body(Data("\(index)".utf8))))
        })
    let byPath = MockRegistry()
    let loadingByPath = try await seconds { try byPath.replay(archive, matching: .methodAndPath) }
    let loadingByURL = try await seconds { try MockRegistry().replay(archive, matching: .methodAndURL) }
    var lastBody = ""
    let answering = try await seconds {
        for _ in 0..<entryCount {
            let (data, _) = try await byPath.session.data(from: page)
            lastBody = String(decoding: data, as: UTF8.self)
        }
    }
    guard lastBody == "\(entryCount - 1)" else {
        throw BenchmarkError(description: "replayed out of order: \(lastBody)")
    }
    await report("10 HAR replay(): 20,000 entries on one path, .methodAndPath", loadingByPath * 1e3, .milliseconds)
    await report("10a the same entries, .methodAndURL", loadingByURL * 1e3, .milliseconds)
    print(
        pad("10b then all 20,000 requested in recorded order")
            + String(format: "%9.2f µs/req (%.2f s)", answering / Double(entryCount) * 1e6, answering))
    await keep("10b then all 20,000 requested in recorded order", answering / Double(entryCount) * 1e6, "µs/req")
}
