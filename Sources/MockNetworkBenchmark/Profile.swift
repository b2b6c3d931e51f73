// `MockNetworkBenchmark profile ROW COUNT`: only COUNT requests (or registrations) of one row, for
// callgrind.

import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes COUNT requests of one row (1n, 2, 2a or 2k), or registers COUNT handlers of one of rows
/// 5e, 5u and 5m, for callgrind: the instructions of one are (total at COUNT − total at a smaller
/// COUNT) / the difference.
func profile(row: String, count: Int) async throws {
    if let form = RegistrationForm(rawValue: row) {
        withExtendedLifetime(form.register(form.addresses(count))) {}
        return
    }
    let registry = MockRegistry()
    switch row {
    case "1n": break
    case "2": registry.register(target.absoluteString) { _ in try .text("ok") }
    case "2a": try registry.register(.url(target.absoluteString), sequence: Array(repeating: .text("ok"), count: count))
    case "2k": try registry.register(target.absoluteString, answer: .text("ok"))
    default:
        print("profile: no row \(row); use 1n, 2, 2a, 2k, 5e, 5u or 5m")
        exit(2)
    }
    let session = row == "1n" ? URLSession(configuration: floorConfiguration()) : registry.session
    try await fetch(session, target, times: count)
}
