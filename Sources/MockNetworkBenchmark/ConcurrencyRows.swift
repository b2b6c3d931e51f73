// Rows 4 and 4n to 4m: 8 tasks at once.

import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Row 4, and rows 4n to 4m beside each other in interleaved rounds.
func concurrencyRows(requests: Int, rounds: Int, _ setup: RequestSetup) async throws {
    // 4. Row 3's registry with 8 concurrent tasks (wall time per request).
    let many = setup.many.registry
    let concurrent = try await seconds {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { try await fetch(many.session, target, times: requests / 8) }
            }
            try await group.waitForAll()
        }
    }
    await report("4 the same, 8 concurrent tasks (wall time / requests)", concurrent / Double(requests / 8 * 8) * 1e6)

    // 4n-4m. Requests per second with 8 concurrent tasks, interleaved: URLSession's own cost (row 1n's
    //        session), one registry with one handler, and 8 registries (a task each), as 8 parallel
    //        tests would be.
    let eight = (0..<8).map { _ in
        let registry = MockRegistry()
        registry.register(.url(target)) { _ in .text("ok") }
        return registry
    }
    let loads: [[URLSession]] = [
        Array(repeating: setup.bare, count: 8), Array(repeating: setup.one.session, count: 8), eight.map(\.session),
    ]
    var perSecond: [[Double]] = Array(repeating: [], count: loads.count)
    let concurrentRequests = max(requests / 10, 800) / 8 * 8
    for round in 0..<rounds {
        for offset in 0..<loads.count {
            let row = (round + offset) % loads.count
            let time = try await seconds {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for session in loads[row] {
                        group.addTask { try await fetch(session, target, times: concurrentRequests / 8) }
                    }
                    try await group.waitForAll()
                }
            }
            perSecond[row].append(Double(concurrentRequests) / time)
        }
    }
    for (name, value) in zip(
        [
            "4n URLSession's own cost, 8 concurrent tasks", "4o MockNetwork, 1 registry, 8 concurrent tasks",
            "4m MockNetwork, 8 registries, a task each",
        ], perSecond.map(median))
    {
        await report(name, value, .requestsPerSecond)
    }
}
