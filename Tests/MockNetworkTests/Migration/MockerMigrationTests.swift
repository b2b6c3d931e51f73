import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The "after" code of "Migrating from Mocker", as the guide shows it.

// Guide: after
final class TransferClientTests: MockNetworkTestCase {
    let transfers = "https://api.example.com/v2/transfers"

    func testCreatesTransfer() async throws {
        register(.url(transfers), method: "POST", expectedCalls: 1) { _ in
            .json(#"{"id": "t1", "name": "Holiday"}"#, status: 201)
        }
        let client = TransferClient(session: session)
        let transfer = try await client.create(name: "Holiday")
        XCTAssertEqual(transfer.id, "t1")

        let sent = mocks.requests(matching: .url(transfers).method("POST"))
        let body = try sent.first?.json(NewTransfer.self)
        XCTAssertEqual(body?.name, "Holiday")
    }
}
// (end of snippet)

extension TransferClientTests {
    // Guide: a request held open, after
    func testCancelsCreating() async throws {
        let gate = mocks.hold(transfers, method: "POST")
        let client = TransferClient(session: session)
        let creating = Task { try await client.create(name: "Holiday") }
        _ = try await gate.arrived()
        creating.cancel()
        let result = await creating.result
        XCTAssertThrowsError(try result.get())
    }
    // (end of snippet)

    /// The guide's table: one registration per method, where Mocker keeps a dictionary of them.
    func testOneRegistrationPerMethod() async throws {
        // Guide: a body per method, after
        let url = "https://api.example.com/v2/transfers/t1"
        register(.url(url), method: "GET") { _ in
            .json(#"{"id": "t1", "name": "Holiday"}"#)
        }
        register(.url(url), method: "HEAD") { _ in
            .status(200, headers: ["ETag": "v1"])
        }
        // (end of snippet)

        let transfer = try await TransferClient(session: session).transfer(id: "t1")
        XCTAssertEqual(transfer, Transfer(id: "t1", name: "Holiday"))
        let head = try await send(session, "HEAD", url)
        XCTAssertEqual(head.response.value(forHTTPHeaderField: "ETag"), "v1")
    }
}
