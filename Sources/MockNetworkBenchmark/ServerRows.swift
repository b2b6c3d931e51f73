// Rows 12 to 13f: requests per second over keep-alive from a plain socket client, through the
// served registry, the engine alone, a minimal socket server (the floor) and the same on Dispatch
// sources, with 1 and 8 connections, in interleaved rounds; row 14: a streamed answer's timing.

import Foundation
import MockNetwork
import MockNetworkServer

/// The three servers the rows load, started once.
struct ServerRowServers {
    /// The floor: a fixed response, nothing parsed (FloorServer).
    let floor: FloorServer
    /// The same on Dispatch sources, as the engine is built.
    let dispatchFloor: DispatchFloorServer
    /// The engine with a constant responder: HTTP parsing and framing, no registry.
    let engine: HTTPServer
    /// A registry with a closure handler for `https://api.example.com/x`, served as that origin.
    let served: MockServer
    /// Kept for `served`'s lifetime.
    let registry: MockRegistry

    init() throws {
        floor = try FloorServer()
        dispatchFloor = try DispatchFloorServer()
        let body = Data("ok".utf8)
        let fields: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]
        engine = try HTTPServer { _, writer in writer.respond(status: 200, headers: fields, body: body) }
        registry = MockRegistry()
        registry.register("https://api.example.com/x") { _ in .text("ok") }
        registry.register("https://api.example.com/stream") { _ in
            .streamed((0..<10).map { _ in Data("ok".utf8) }, every: .milliseconds(10))
        }
        served = try MockServer(serving: registry, as: ["https://api.example.com"])
    }

    /// The port of the server a row loads: `f` the floor, `d` the floor on Dispatch, `e` the engine,
    /// else the served registry.
    func port(_ kind: Character) -> Int {
        switch kind {
        case "f": floor.port
        case "d": dispatchFloor.port
        case "e": engine.port
        default: served.port
        }
    }
}

/// The process's CPU time per request of each server row (client and server), by row number.
@MainActor var cpuPerRequest: [String: Double] = [:]

/// The rows' loads, in the order they are printed.
private let serverLoads: [(name: String, kind: Character, connections: Int)] = [
    ("12f minimal socket server (floor), 1 connection", "f", 1),
    ("12d the same on Dispatch sources, 1 connection", "d", 1),
    ("12e HTTPServer, a constant responder, 1 connection", "e", 1),
    ("12 MockServer, a closure handler, 1 connection", "s", 1),
    ("13f minimal socket server (floor), 8 connections", "f", 8),
    ("13d the same on Dispatch sources, 8 connections", "d", 8),
    ("13e HTTPServer, a constant responder, 8 connections", "e", 8),
    ("13 MockServer, a closure handler, 8 connections", "s", 8),
]

/// Rows 12 to 13f in interleaved rounds (each the median of its rounds), then row 14. A row makes
/// `max(requests, 5,000)` requests over its rounds.
@MainActor func serverRows(requests: Int, rounds: Int = 10) throws {
    let servers = try ServerRowServers()
    let perRound = max(requests, 5_000) / rounds / 8 * 8
    for load in serverLoads {
        _ = try MockNetworkBenchmark.load(
            port: servers.port(load.kind), path: "/x", connections: load.connections, total: 400)
    }
    var perSecond: [[Double]] = Array(repeating: [], count: serverLoads.count)
    var cpu: [[Double]] = Array(repeating: [], count: serverLoads.count)
    for round in 0..<rounds {
        for offset in 0..<serverLoads.count {
            let row = (round + offset) % serverLoads.count
            let load = serverLoads[row]
            let figures = try MockNetworkBenchmark.load(
                port: servers.port(load.kind), path: "/x", connections: load.connections, total: perRound)
            perSecond[row].append(figures.perSecond)
            cpu[row].append(figures.cpuMicroseconds)
        }
    }
    for (index, load) in serverLoads.enumerated() {
        let value = median(perSecond[index])
        cpuPerRequest[number(of: load.name)] = median(cpu[index])
        print(pad(load.name) + String(format: "%9.0f req/s  %6.1f µs CPU/req", value, median(cpu[index])))
        keep(load.name, value, "req/s")
    }
    try streamedAnswerRow(port: servers.served.port)
}

/// Row 14: a body in 10 chunks, one every 10 ms, from the served registry to a socket client:
/// when its first byte came after the request, and how late its chunks came against their times
/// (chunk n due n × 10 ms after the first), over 5 requests.
@MainActor func streamedAnswerRow(port: Int) throws {
    var firstBytes: [Double] = []
    var lateness: [Double] = []
    for _ in 0..<5 {
        let timing = try timeStreamedAnswer(port: port, path: "/stream")
        guard timing.chunks.count == 10 else {
            throw BenchmarkError(description: "a stream of \(timing.chunks.count) chunks, not 10")
        }
        firstBytes.append(timing.firstByte * 1e3)
        for (index, time) in timing.chunks.enumerated() {
            lateness.append((time - timing.chunks[0] - Double(index) * 0.010) * 1e3)
        }
    }
    let late = lateness.sorted()
    let name = "14 10 chunks, 1 per 10 ms: first byte; late median / max"
    print(
        pad(name)
            + String(
                format: "%.2f ms; %.2f / %.2f ms", median(firstBytes), late[late.count / 2], late[late.count - 1]))
    keep(name, median(firstBytes), "ms")
}

/// The server rows' target, beside its floor from the same run.
@MainActor func serverTargets() {
    let ratio = figure("13") / figure("13f")
    print(
        pad("  13 MockServer, closure, 8 connections / 13f (req/s)")
            + String(format: "%5.2f× (target ≥ 0.75×) %@", ratio, ratio >= 0.75 ? "met" : "MISSED"))
}

/// Ratios between the server rows of this run: requests per second over the floor's, and the
/// floor's CPU time per request over theirs (what the machine's other work moves least).
@MainActor func serverRatios() {
    func ratios(_ rows: [String], floor: String, _ figure: (String) -> Double) -> String {
        rows.map { String(format: "%@ %.2f×", $0, figure($0) / figure(floor)) }.joined(separator: ", ")
    }
    let cpu = { (row: String) in 1 / (cpuPerRequest[row] ?? .nan) }
    print(
        "over the floor, req/s: 1 connection: " + ratios(["12d", "12e", "12"], floor: "12f", figure)
            + "; 8 connections: " + ratios(["13d", "13e", "13"], floor: "13f", figure))
    print(
        "over the floor, CPU per request (floor's / row's): 1 connection: "
            + ratios(["12d", "12e", "12"], floor: "12f", cpu) + "; 8 connections: "
            + ratios(["13d", "13e", "13"], floor: "13f", cpu))
}
