// Measures what a mocked request costs, against the hand-written protocol of the tutorials.
//
//     swift run -c release MockNetworkBenchmark          a full run, 20,000 requests a row
//     swift run -c release MockNetworkBenchmark 2000     a short run (CI's)
//     swift run -c release MockNetworkBenchmark registering   rows 5e, 5u and 5m only
//     swift run -c release MockNetworkBenchmark profile ROW COUNT
//     swift run -c release MockNetworkBenchmark server [REQUESTS]   rows 12 to 14 only
//     swift run -c release MockNetworkBenchmark server-profile SERVER CONNECTIONS COUNT   for callgrind
//     swift run -c release MockNetworkBenchmark echo-server SECONDS   a WebSocket echo for scripts/autobahn
//
// All rows come from one run, so their ratios compare like with like; absolute figures
// swing 2-3x between runs on a shared machine. One file per group of rows: RequestRows (1 to 3t,
// 2s, 2d, 2t), GraphQLRows (3g, 3h), ConcurrencyRows (4 to 4m), RegistrationRows (5 to 5m, 7 to
// 9), MemoryRows (6, 11), ArchiveRows (10 to 10b), ServerRows (12 to 14, over HTTP), then Targets,
// with Regressions against this machine's Baselines.

import Foundation

let arguments = CommandLine.arguments

if arguments.count == 4, arguments[1] == "profile", let count = Int(arguments[3]) {
    do { try profile(row: arguments[2], count: count) } catch {
        print("profile failed: \(error)")
        exit(1)
    }
    exit(0)
}

if arguments.count == 5, arguments[1] == "server-profile", let connections = Int(arguments[3]),
    let count = Int(arguments[4])
{
    try serverProfile(server: arguments[2], connections: connections, count: count)
    exit(0)
}

if arguments.count == 3, arguments[1] == "echo-server", let seconds = Int(arguments[2]) {
    try serveEcho(seconds: seconds)
}

if arguments.count >= 2, arguments[1] == "server" {
    let requests = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000
    print("MockNetwork benchmark: over HTTP, median of 10 interleaved rounds, release build")
    try serverRows(requests: requests)
    serverRatios()
    print("targets:")
    serverTargets()
    regressions(requests: nil, rows: ["13e", "13"])
    exit(0)
}

if arguments.count == 2, arguments[1] == "registering" {
    print("MockNetwork benchmark: registering, median of 9 interleaved rounds, release build")
    await registrationFormRows()
    print("targets:")
    registrationTargets()
    regressions(requests: nil, rows: Set(RegistrationForm.allCases.map(\.rawValue)))
    figuresForBaseline(requests: nil)
    exit(0)
}

let requests = arguments.count > 1 ? Int(arguments[1]) ?? 20_000 : 20_000

do {
    print(
        "MockNetwork benchmark: \(requests) sequential data(from:) requests per row (median of 20 interleaved rounds), release build"
    )
    print(pad("row") + "   µs/req")
    let setup = try await requestRows(requests: requests)
    try await graphQLRows(requests: requests, rounds: 20)
    try await concurrencyRows(requests: requests, rounds: 20, setup)
    registeringRow(setup.many)
    await registrationFormRows()
    try await memoryRow()
    try await patternsAndRemovalRows(setup.many)
    try await archiveRows()
    try await releasedRegistryRow(requests: requests)
    try serverRows(requests: requests)
    ratiosAndTargets(requests: requests)
} catch {
    print("benchmark failed: \(error)")
    exit(1)
}
