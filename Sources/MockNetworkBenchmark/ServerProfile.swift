// `MockNetworkBenchmark server-profile SERVER CONNECTIONS COUNT`: only COUNT requests to one of the
// server rows' servers, for callgrind (sockets and threads only, no URLSession).

import Foundation

/// Makes COUNT requests over CONNECTIONS keep-alive connections to the floor (`floor`), the floor on
/// Dispatch sources (`dispatch`), the engine with a constant responder (`engine`) or the served
/// registry (`served`). The instructions of one
/// request are (total at COUNT − total at a smaller COUNT) / the difference.
@MainActor func serverProfile(server: String, connections: Int, count: Int) throws {
    let kinds: [String: Character] = ["floor": "f", "dispatch": "d", "engine": "e", "served": "s"]
    guard let kind = kinds[server], connections > 0 else {
        print("server-profile: use floor, dispatch, engine or served, then a number of connections and of requests")
        exit(2)
    }
    let servers = try ServerRowServers()
    let figures = try load(
        port: servers.port(kind), path: "/x", connections: connections, total: count / connections * connections)
    print(
        String(
            format: "%@, %d connections: %.0f req/s, %.1f µs CPU/req", server, connections, figures.perSecond,
            figures.cpuMicroseconds))
}
