import Dispatch
import Foundation
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Synchronous tests that block their thread waiting for a completion handler, as tutorials write
/// them, several at once: the cooperative pool is full, and handlers must still run at once, in
/// their own test.
@Suite(.mockNetwork)
struct StarvedPoolTests {
    /// Whether handlers run on MockNetwork's task executor. Before macOS 15 / iOS 18 there are no task
    /// executors: handler tasks use the pool these tests fill, and one not started within two seconds
    /// runs outside the test (the documented fallback), so what is checked here does not hold there.
    static var handlersHaveTheirOwnExecutor: Bool {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { return true }
        return false
    }

    @Test(.enabled(if: handlersHaveTheirOwnExecutor, "task executors need macOS 15 / iOS 18"), arguments: 0..<6)
    func handlerRunsPromptlyWhileTheTestBlocksItsThread(number: Int) throws {
        let mocks = MockRegistry.current
        let testName = Test.current?.name
        let seen = Shared<[(delay: TimeInterval, sameRegistry: Bool, sameTest: Bool)]>([])
        let asked = Shared(Date())
        mocks.register(.url("https://api.example.com/case", query: .ignored)) { request in
            let delay = Date().timeIntervalSince(asked.current)
            seen.update {
                $0.append((delay, MockRegistry.current === mocks, Test.current?.name == testName))
            }
            return .text(request.url?.query ?? "")
        }
        for call in 0..<3 {
            let done = DispatchSemaphore(value: 0)
            let answer = Shared("")
            let target = try #require(URL(string: "https://api.example.com/case?n=\(number)&c=\(call)"))
            asked.update { $0 = Date() }
            mocks.session.dataTask(with: target) { data, _, _ in
                answer.update { $0 = String(decoding: data ?? Data(), as: UTF8.self) }
                done.signal()
            }.resume()
            #expect(done.wait(timeout: .now() + 10) == .success)
            #expect(answer.current == "n=\(number)&c=\(call)")
        }
        let calls = seen.current
        #expect(calls.count == 3)
        #expect(calls.allSatisfy { $0.delay < 0.05 }, "handler start delays: \(calls.map(\.delay))")
        #expect(calls.allSatisfy { $0.sameRegistry }, "MockRegistry.current in the handler is the test's registry")
        #expect(calls.allSatisfy { $0.sameTest }, "Test.current in the handler is the test itself")
    }
}
