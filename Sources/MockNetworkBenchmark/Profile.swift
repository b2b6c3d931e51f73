// `MockNetworkBenchmark profile ROW COUNT`: only COUNT requests (or registrations) of one row, for
// callgrind. The requests use completion handlers and a semaphore, and the mode runs before the
// benchmark's first `await`: valgrind 3.19 crashes on a program that awaits URLSession's async API.
//
//     valgrind --tool=callgrind --callgrind-out-file=/tmp/2.%p MockNetworkBenchmark profile 2 1200
//
// scripts/profile-requests runs each row at two counts and prints instructions per request, in all
// and per stage.

import Foundation
import MockNetwork
import MockNetworkGraphQL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes COUNT requests of one row (1n, 2, 2a, 2k, 3g or 3h), or registers COUNT handlers of one of rows
/// 5e, 5u and 5m, for callgrind: the instructions of one are (total at COUNT − total at a smaller
/// COUNT) / the difference.
func profile(row: String, count: Int) throws {
    if let form = RegistrationForm(rawValue: row) {
        withExtendedLifetime(form.register(form.addresses(count))) {}
        return
    }
    if row == "3g" || row == "3h" {
        let (registry, request) = try graphQLSetup(operations: row == "3g")
        try fetchWithCompletionHandlers(registry.session, request, times: count)
        return
    }
    let registry = MockRegistry()
    switch row {
    case "1n": break
    case "2": registry.register(.url(target)) { _ in .text("ok") }
    case "2a": registry.register(.url(target.absoluteString), sequence: Array(repeating: .text("ok"), count: count))
    case "2k": registry.register(.url(target), answer: .text("ok"))
    default:
        print("profile: no row \(row); use 1n, 2, 2a, 2k, 3g, 3h, 5e, 5u or 5m")
        exit(2)
    }
    let session = row == "1n" ? URLSession(configuration: floorConfiguration()) : registry.session
    try fetchWithCompletionHandlers(session, URLRequest(url: target), times: count)
}

/// `fetch(_:_:times:)` with `dataTask(with:completionHandler:)`, one request at a time.
func fetchWithCompletionHandlers(_ session: URLSession, _ request: URLRequest, times: Int) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Locked(String?.none)
    for _ in 0..<times {
        session.dataTask(with: request) { data, _, error in
            if data?.count != 2 {
                failure.withLock { $0 = "a body of \(data?.count ?? 0) bytes (\(error.map { "\($0)" } ?? "no error"))" }
            }
            done.signal()
        }.resume()
        done.wait()
        if let failure = failure.withLock({ $0 }) { throw BenchmarkError(description: failure) }
    }
}
