// Rows 6 and 11: memory over many requests, and memory a released registry leaves behind.

import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Row 6. Memory: a registry answering 100,000 requests, after a warm-up that fills its request log.
func memoryRow() async throws {
    let memory = MockRegistry()
    memory.register(.url(target)) { _ in .text("ok") }
    try await fetch(memory.session, target, times: 20_000)
    let before = residentBytes()
    try await fetch(memory.session, target, times: 100_000)
    let after = residentBytes()
    print(
        pad("6 resident memory over 100,000 requests")
            + String(
                format: "%.1f MB → %.1f MB (%+.1f MB)", Double(before) / 1e6, Double(after) / 1e6,
                Double(after - before) / 1e6))
    await keep("6 resident memory over 100,000 requests, growth", Double(after - before) / 1e6, "MB")
}

/// Row 11. Memory kept per registry once it and its session are released (after one request each).
func releasedRegistryRow(requests: Int) async throws {
    let releasedCount = max(requests, 1_000)
    for _ in 0..<200 {
        let registry = MockRegistry()
        registry.register(.url(target)) { _ in .text("ok") }
        try await fetch(registry.session, target, times: 1)
    }
    try await Task.sleep(nanoseconds: 400_000_000)
    let beforeReleased = residentBytes()
    for _ in 0..<releasedCount {
        let registry = MockRegistry()
        registry.register(.url(target)) { _ in .text("ok") }
        try await fetch(registry.session, target, times: 1)
    }
    try await Task.sleep(nanoseconds: 400_000_000)
    _ = MockRegistry()  // sweeps what is released
    let keptPerRegistry = Double(residentBytes() - beforeReleased) / Double(releasedCount)
    await report("11 memory kept per released registry", keptPerRegistry / 1e3, .kilobytes)
}
