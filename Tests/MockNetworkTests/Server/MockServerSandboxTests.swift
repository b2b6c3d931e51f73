import Foundation
import MockNetwork
import XCTest

@testable import MockNetworkServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A server that may not listen says why. In a sandboxed macOS process (an app that hosts tests,
/// with App Sandbox on) `bind` fails with `EPERM` unless the process has the entitlement
/// `com.apple.security.network.server` (Apple's App Sandbox documentation; not verified here, there
/// is no macOS). Linux lets every process bind 127.0.0.1, so the `errno` is injected.
final class MockServerSandboxTests: XCTestCase {
    func testABindRefusedWithEPERMNamesTheSandboxEntitlement() throws {
        let mocks = MockRegistry()
        XCTAssertThrowsError(
            try MockServer(serving: mocks, as: [], limits: HTTPServerLimits(), failingBind: EPERM)
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(
                message.hasPrefix(
                    "MockServer: could not listen on 127.0.0.1: bind(127.0.0.1:0) failed: "
                        + "\(String(cString: strerror(EPERM))) (errno \(EPERM))."),
                message)
            XCTAssertTrue(message.contains("the entitlement com.apple.security.network.server"), message)
            XCTAssertEqual((error as? MockServer.ListenError)?.code, EPERM)
            XCTAssertEqual(error.localizedDescription, message, "what an app's log shows too")
        }
    }

    func testAnotherBindFailureSaysWhatFailedWithoutTheSandbox() throws {
        XCTAssertThrowsError(
            try MockServer(serving: MockRegistry(), as: [], limits: HTTPServerLimits(), failingBind: EADDRNOTAVAIL)
        ) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("MockServer: could not listen on 127.0.0.1: bind(127.0.0.1:0)"), message)
            XCTAssertFalse(message.contains("entitlement"), message)
        }
    }

    func testTheSeamLeavesOtherServersAlone() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/user") { _ in .text("Ada") }
        XCTAssertThrowsError(try MockServer(serving: mocks, as: [], limits: HTTPServerLimits(), failingBind: EPERM))
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        defer { server.stop() }
        let (data, _) = try await withWatchdog(20) { try await URLSession.shared.data(from: server.url("/user")) }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "Ada")
    }
}
