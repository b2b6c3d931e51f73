import Foundation
import MockNetwork
import MockNetworkArchives
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Record mode against a real HTTP server on 127.0.0.1 (redaction of what is written: `ArchiveRedactionTests.swift`).
final class ArchiveRecordTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveRecordTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    let userJSON = Data(#"{"id":1,"name":"Ada"}"#.utf8)

    func makeServer() throws -> LoopbackServer {
        try LoopbackServer(
            routes: [
                "GET /users/1": .init(
                    status: 200, headers: [("Content-Type", "application/json"), ("X-Served-By", "loopback")],
                    body: userJSON),
                "POST /users?notify=false": .init(
                    status: 201, headers: [("Content-Type", "text/plain")], text: "created 2"),
            ], maxRequests: 8, lifetime: 20)
    }

    func testMissingModeRecordsOnlyWhatTheArchiveLacksAndKeepsItsEntries() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("Archives/users.har")
        let user = try XCTUnwrap(server.url("/users/1")).absoluteString
        let create = try XCTUnwrap(server.url("/users?notify=false")).absoluteString

        let first = MockRegistry()
        try first.useArchive(at: file, mode: .once)
        _ = try await send(first.session, "GET", user)
        first.reset()
        let before = try Data(contentsOf: file)
        XCTAssertEqual(server.received.count, 1)

        let second = MockRegistry()
        try second.useArchive(at: file, mode: .missing)
        let replayed = try await send(second.session, "GET", user)
        let created = try await send(second.session, "POST", create, body: Data("x".utf8))
        XCTAssertEqual(replayed.body, userJSON)
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(server.received.map(\.method), ["GET", "POST"], "only the missing request reached the server")
        XCTAssertEqual(second.failures, [])

        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.method), ["GET", "POST"])
        let after = try Data(contentsOf: file)
        let firstEntry = try XCTUnwrap(
            String(data: before, encoding: .utf8)?.components(separatedBy: "\"entries\" : [").last)
        let kept = String(firstEntry.prefix(while: { $0 != "}" }))
        XCTAssertTrue(String(decoding: after, as: UTF8.self).contains(kept), "the entry it held is written as it was")
    }

    func testTwoRegistriesRecordingOneFileFailInsteadOfOverwriting() throws {
        let file = folder.appendingPathComponent("Archives/shared.har")
        let first = MockRegistry()
        try first.useArchive(at: file, mode: .rewrite)
        let second = MockRegistry()
        XCTAssertThrowsError(try second.useArchive(at: file, mode: .rewrite)) { error in
            guard case .archiveInUse(let path, let owner) = error as? ArchiveError else {
                return XCTFail("expected archiveInUse, got \(error)")
            }
            XCTAssertEqual(path, file.path)
            XCTAssertTrue(owner.hasPrefix("the registry set up at MockNetworkTests/ArchiveRecordTests.swift:"), owner)
        }
        // The second's failed claim leaves the first's in place: a third fails too.
        let third = MockRegistry()
        XCTAssertThrowsError(try third.useArchive(at: file, mode: .missing)) { error in
            XCTAssertEqual((error as? ArchiveError).map { "\($0)" }?.contains("is already recording"), true)
        }
        // Once the first is done with it, the file is free.
        first.reset()
        XCTAssertNoThrow(try second.useArchive(at: file, mode: .rewrite))
    }

    func testAFolderNamedLikeABundleInTheSourceTreeStillRecords() throws {
        let sources = folder.appendingPathComponent("dogs.app/Tests/Archives/ping.har")
        XCTAssertNoThrow(try MockRegistry().useArchive(at: sources, mode: .rewrite))
        let bundle = folder.appendingPathComponent("Fake.bundle")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data("<plist/>".utf8).write(to: bundle.appendingPathComponent("Info.plist"))
        let inBundle = bundle.appendingPathComponent("Archives/ping.har")
        XCTAssertThrowsError(try MockRegistry().useArchive(at: inBundle, mode: .rewrite)) { error in
            XCTAssertEqual(error as? ArchiveError, .archiveInBundle(path: inBundle.path))
        }
    }

    func testOnceRecordsWhatTheServerSentThenReplaysItWithoutTheServer() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("Archives/users.har")
        let user = try XCTUnwrap(server.url("/users/1")).absoluteString
        let create = try XCTUnwrap(server.url("/users?notify=false")).absoluteString
        let posted = Data(#"{"name":"Grace"}"#.utf8)

        let recording = MockRegistry()
        try recording.useArchive(at: file, mode: .once)
        let live = [
            try await send(recording.session, "GET", user, headers: ["Accept": "application/json"]),
            try await send(
                recording.session, "POST", create, headers: ["Content-Type": "application/json"], body: posted),
        ]
        XCTAssertEqual(live.map(\.status), [200, 201], "the client gets the real responses")
        XCTAssertEqual(live[0].body, userJSON)
        XCTAssertEqual(live[0].response.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        XCTAssertEqual(server.received.map(\.method), ["GET", "POST"])
        XCTAssertEqual(server.received.map(\.target), ["/users/1", "/users?notify=false"])
        XCTAssertEqual(server.received.last?.body, posted)
        XCTAssertEqual(recording.failures, [])

        // The file holds what the server sent.
        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.method), ["GET", "POST"])
        XCTAssertEqual(archive.entries.map(\.request.url), [user, create])
        XCTAssertEqual(archive.entries.map(\.response.status), [200, 201])
        XCTAssertEqual(archive.entries[0].response.body.data, userJSON)
        XCTAssertEqual(archive.entries[0].response.body.mimeType, "application/json")
        XCTAssertTrue(
            archive.entries[0].response.headers.contains {
                $0.name.lowercased() == "x-served-by" && $0.value == "loopback"
            })
        XCTAssertEqual(archive.entries[1].request.body?.data, posted)
        XCTAssertEqual(archive.entries[1].response.body.text, "created 2")
        XCTAssertEqual(archive.entries[0].request.headers.first { $0.name == "Accept" }?.value, "application/json")

        // Now the archive exists: `once` replays it, with the server gone.
        server.stop()
        let replaying = MockRegistry()
        try replaying.useArchive(at: file, mode: .once)
        let replayed = [
            try await send(replaying.session, "GET", user),
            try await send(replaying.session, "POST", create, body: posted),
        ]
        XCTAssertEqual(replayed.map(\.status), [200, 201])
        XCTAssertEqual(replayed.map(\.body), live.map(\.body))
        XCTAssertEqual(replayed[0].response.value(forHTTPHeaderField: "X-Served-By"), "loopback")
        XCTAssertEqual(server.received.count, 2, "replay does not reach the server")
        XCTAssertEqual(replaying.failures, [])
    }

    func testRewriteRecordsAfresh() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("users.har")
        try HTTPArchive(entries: [
            HTTPArchive.Entry(
                request: HTTPArchive.Request(method: "GET", url: "https://old.example.com/stale"),
                response: HTTPArchive.Response(status: 200))
        ]).write(to: file)

        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)
        let reply = try await send(mocks.session, "GET", try XCTUnwrap(server.url("/users/1")).absoluteString)
        XCTAssertEqual(reply.body, userJSON)

        let archive = try HTTPArchive(contentsOf: file)
        XCTAssertEqual(archive.entries.map(\.request.url), [try XCTUnwrap(server.url("/users/1")).absoluteString])
        XCTAssertEqual(server.received.count, 1)
    }

    func testHandlersStillAnswerWhileRecordingAndAreNotRecorded() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let file = folder.appendingPathComponent("mixed.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)
        mocks.register("https://auth.example.com/token") { _ in .json(#"{"token":"t"}"#) }

        let token = try await send(mocks.session, "GET", "https://auth.example.com/token")
        XCTAssertEqual(token.status, 200)
        _ = try await send(mocks.session, "GET", try XCTUnwrap(server.url("/users/1")).absoluteString)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries.count, 1)
        XCTAssertEqual(mocks.exportedArchive().entries.count, 2, "export has both: what was stubbed and what was live")
    }

    func testNetworkFailureWhileRecordingIsReportedAndNotRecorded() async throws {
        let server = try makeServer()
        let address = try XCTUnwrap(server.url("/users/1")).absoluteString
        server.stop()
        let file = folder.appendingPathComponent("down.har")
        let mocks = MockRegistry()
        try mocks.useArchive(at: file, mode: .rewrite)

        let error = await thrownError { try await send(mocks.session, "GET", address) }
        XCTAssertEqual((error as? URLError)?.code, .cannotConnectToHost)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries, [])
        let message = try XCTUnwrap(mocks.failures.first?.message)
        XCTAssertTrue(
            message.hasPrefix("MockNetwork: while recording \(file.path), GET \(address) failed on the real network"),
            message)
    }
}
