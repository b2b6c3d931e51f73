import Foundation
import MockNetwork
import MockNetworkTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Protocol classes seen by the tests below: every test and every case must get its own registry.
private let seenRegistries = Seen()

@Suite(.mockNetwork)
struct TraitTests {
    struct Feed: Decodable {
        let items: [String]
    }

    @Test func loadsFeedThroughTheTestsOwnRegistry() async throws {
        let mocks = MockRegistry.current
        #expect(seenRegistries.insert(ObjectIdentifier(mocks.protocolClass)))
        mocks.register("https://api.example.com/feed") { request in
            .json(#"{"items": ["a", "b"], "auth": "\#(request.value(forHTTPHeaderField: "Authorization") ?? "")"}"#)
        }
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/feed")))
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let (data, response) = try await mocks.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(try JSONDecoder().decode(Feed.self, from: data).items == ["a", "b"])
        #expect(mocks.requests.map(\.method) == ["GET"])
        #expect(mocks.requests.first?.header("authorization") == "Bearer t")
    }

    @Test func aSecondTestStartsEmpty() async throws {
        let mocks = MockRegistry.current
        #expect(seenRegistries.insert(ObjectIdentifier(mocks.protocolClass)))
        #expect(mocks.registered == [])
        #expect(mocks.requests == [])
    }

    @Test func currentIsTheSameRegistryThroughoutATest() async throws {
        let first = MockRegistry.current
        #expect(seenRegistries.insert(ObjectIdentifier(first.protocolClass)))
        await Task.yield()
        #expect(MockRegistry.current === first)
        let fromChildTask = await Task { MockRegistry.current }.value
        #expect(fromChildTask === first)
    }
}

/// 64 cases in parallel in one process, each registering the same URLs with bodies of its own.
@Suite(.mockNetwork)
struct ParallelIsolationTests {
    static let paths = ["profile", "feed", "settings", "avatar"]

    @Test(arguments: 0..<64)
    func eachCaseReceivesOnlyItsOwnAnswers(index: Int) async throws {
        let mocks = MockRegistry.current
        #expect(seenRegistries.insert(ObjectIdentifier(mocks.protocolClass)))
        for path in Self.paths {
            mocks.register("https://api.example.com/\(path)") { _ in .text("case \(index) \(path)") }
        }
        for round in 0..<5 {
            for path in Self.paths.shuffled() {
                let (data, _) = try await mocks.session.data(
                    from: try #require(URL(string: "https://api.example.com/\(path)")))
                #expect(String(decoding: data, as: UTF8.self) == "case \(index) \(path)", "round \(round)")
                await Task.yield()
            }
        }
        #expect(mocks.requests.count == 20)
        for path in Self.paths {
            #expect(mocks.callCount(for: "https://api.example.com/\(path)") == 5)
        }
    }
}

final class Seen: Sendable {
    private let ids = Mutex<Set<ObjectIdentifier>>()

    /// Whether `id` was new.
    func insert(_ id: ObjectIdentifier) -> Bool {
        ids.withLock { $0.insert(id).inserted }
    }
}

/// A lock box for the tests (`Synchronization.Mutex` needs macOS 15 / iOS 18 on Apple platforms).
final class Mutex<Value: Sendable>: @unchecked Sendable {  // every access to `value` holds `lock`
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    convenience init() where Value == Set<ObjectIdentifier> { self.init([]) }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
