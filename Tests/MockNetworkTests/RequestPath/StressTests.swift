import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Handlers that sleep and make nested requests, many at once, over several registries.
final class StressTests: XCTestCase {
    func testSleepingAndNestingHandlersCrossNothingAndStallNobody() async throws {
        let registries = (0..<8).map { _ in MockRegistry() }
        for (index, mocks) in registries.enumerated() {
            let next = registries[(index + 1) % registries.count].session
            mocks.register(.url("https://r\(index).example.com/plain", query: .ignored)) { request in
                .text("r\(index) \(request.url?.query ?? "")")
            }
            mocks.register(.url("https://r\(index).example.com/sleepy", query: .ignored)) { request in
                Thread.sleep(forTimeInterval: 1)
                return .text("r\(index) \(request.url?.query ?? "")")
            }
            let nextIndex = (index + 1) % registries.count
            mocks.register(.url("https://r\(index).example.com/nested", query: .ignored)) { request in
                // Asks the next registry, and waits for it on this thread.
                let query = request.url?.query ?? ""
                guard let target = URL(string: "https://r\(nextIndex).example.com/plain?\(query)") else {
                    throw URLError(.badURL)
                }
                return .text("r\(index) via \(textWaitingOnThisThread(next, target))")
            }
        }

        struct Outcome: Sendable {
            var crossed: [String] = []
            var slowest: TimeInterval = 0
            var requests = 0
        }
        let outcome = try await withWatchdog(60) {
            try await withThrowingTaskGroup(of: Outcome.self) { group in
                for task in 0..<16 {
                    group.addTask {
                        var outcome = Outcome()
                        let index = task % registries.count
                        let session = registries[index].session
                        for call in 0..<40 {
                            let query = "t=\(task)&c=\(call)"
                            let kind = call % 20 == 0 ? "sleepy" : call % 10 == 5 ? "nested" : "plain"
                            let start = Date()
                            let reply = try await send(session, "GET", "https://r\(index).example.com/\(kind)?\(query)")
                            let elapsed = Date().timeIntervalSince(start)
                            let expected =
                                kind == "nested"
                                ? "r\(index) via r\((index + 1) % registries.count) \(query)" : "r\(index) \(query)"
                            if reply.text != expected { outcome.crossed.append("\(reply.text) ≠ \(expected)") }
                            if kind != "sleepy" { outcome.slowest = max(outcome.slowest, elapsed) }
                            outcome.requests += 1
                        }
                        return outcome
                    }
                }
                var total = Outcome()
                for try await outcome in group {
                    total.crossed += outcome.crossed
                    total.slowest = max(total.slowest, outcome.slowest)
                    total.requests += outcome.requests
                }
                return total
            }
        }
        XCTAssertEqual(outcome.requests, 640)
        XCTAssertEqual(outcome.crossed, [], "answers crossed between requests")
        // Half the sleepers' time: a request that waited for one took a second; a busy machine slows the rest.
        XCTAssertLessThan(outcome.slowest, 0.5, "a request whose handler does not sleep waited for one that does")
        print(
            String(
                format: "stress: %d requests, %d crossed, slowest non-sleeping request %.1f ms", outcome.requests,
                outcome.crossed.count, outcome.slowest * 1000))
    }
}
