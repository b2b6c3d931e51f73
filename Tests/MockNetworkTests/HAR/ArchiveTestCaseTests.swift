import Foundation
import MockNetwork
import MockNetworkArchives
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The XCTest base class records next to the test's source file.
final class ArchiveTestCaseTests: MockNetworkTestCase {
    func testUseArchiveRecordsIntoArchivesNextToTheSourceFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ArchiveTestCase-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try LoopbackServer(routes: ["GET /ping": .init(status: 200, text: "pong")], maxRequests: 2)
        defer { server.stop() }
        let source = folder.appendingPathComponent("PingTests.swift").path

        try useArchive("ping", mode: .once, filePath: source)
        let reply = try await send(session, "GET", try XCTUnwrap(server.url("/ping")).absoluteString)
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), "pong")
        let file = folder.appendingPathComponent("Archives/ping.har")
        XCTAssertEqual(mocks.archiveFile?.standardizedFileURL, file.standardizedFileURL)
        XCTAssertEqual(try HTTPArchive(contentsOf: file).entries.first?.response.body.text, "pong")
    }

    func testReplaysFromTheBundleWhenTheSourceTreeHasNoArchive() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
            .path
        try useArchive("chrome-shop", mode: .never, bundle: .module, filePath: elsewhere)
        let reply = try await send(session, "GET", "https://shop.example.com/api/products?page=1&sort=price")
        XCTAssertEqual(reply.status, 200)
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        XCTAssertEqual(mocks.archiveFile, bundled, "the archive it replays is the bundle's")
    }

    func testAnEntryMissingFromTheBundlesArchiveNamesItAndHowToRecordTheSource() async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
        try useArchive("chrome-shop", mode: .never, bundle: .module, filePath: source.path)
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        let sourceArchive = source.deletingLastPathComponent().appendingPathComponent("Archives/chrome-shop.har")

        let error = await thrownError { try await send(session, "GET", "https://shop.example.com/api/orders") }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        let lines = message.split(separator: "\n").map(String.init)
        let shown = "\(bundled.path) (from the bundle; its source is \(sourceArchive.path))"
        XCTAssertEqual(
            lines.first, "MockNetwork: no entry for GET https://shop.example.com/api/orders in the archive \(shown).")
        XCTAssertEqual(
            lines.last,
            "Fix: record it from the real server where the sources are: MOCKNETWORK_RECORD=missing swift test "
                + "--filter 'ArchiveTestCaseTests/testAnEntryMissingFromTheBundlesArchiveNamesItAndHowToRecordTheSource' "
                + "adds it to \(sourceArchive.path); the bundle gets it when the tests are built again (or correct the "
                + "URL the client builds).")
        XCTAssertTrue(
            (error as? URLError)?.localizedDescription.contains("in the archive \(shown)") == true,
            String(describing: error))
    }

    func testAFileInsideABundleIsReplayedWithAFixThatPointsAtTheSources() async throws {
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        try mocks.useArchive(at: bundled, mode: .never)
        let reply = try await send(session, "GET", "https://shop.example.com/api/products?page=1&sort=price")
        XCTAssertEqual(reply.status, 200)

        _ = await thrownError { try await send(session, "GET", "https://shop.example.com/api/orders") }
        let message = try XCTUnwrap(mocks.takeFailures().first?.message)
        XCTAssertTrue(message.contains("in the archive \(bundled.path) (a copy in a built bundle)."), message)
        XCTAssertTrue(
            message.hasSuffix(
                "Fix: this file is the copy a build put in the bundle, so recording into it would be lost. Record the "
                    + "archive in your source tree (useArchive(at:) with its path there, then MOCKNETWORK_RECORD=missing "
                    + "swift test) and build again (or correct the URL the client builds)."), message)
    }

    func testRecordingIntoABundlesCopyThrows() throws {
        let bundled = try XCTUnwrap(HTTPArchive.file(named: "chrome-shop", in: .module))
        let before = try Data(contentsOf: bundled)
        for mode in [HTTPArchive.RecordMode.rewrite, .missing] {
            XCTAssertThrowsError(try mocks.useArchive(at: bundled, mode: mode)) { error in
                XCTAssertEqual(error as? ArchiveError, .archiveInBundle(path: bundled.path), "\(mode)")
                XCTAssertTrue("\(error)".contains("Record the archive in your source tree"), "\(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: bundled), before, "the bundle's copy is untouched")
        XCTAssertNil(mocks.archiveFile)
        try mocks.useArchive(at: bundled, mode: .once)
        XCTAssertEqual(mocks.archiveFile, bundled, "once: it exists, so it is replayed")
    }

    func testWithoutArchiveOrBundleTheErrorSaysHowToRecord() {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("NoSourceTree/ShopTests.swift")
            .path
        XCTAssertThrowsError(try useArchive("absent", mode: .never, bundle: .module, filePath: elsewhere)) { error in
            XCTAssertEqual(
                "\(error)",
                "MockNetwork: there is no archive at \(FileManager.default.temporaryDirectory.path)/NoSourceTree/Archives/"
                    + "absent.har to replay. Record it from the real server: MOCKNETWORK_RECORD=once swift test "
                    + "--filter 'ArchiveTestCaseTests/testWithoutArchiveOrBundleTheErrorSaysHowToRecord'")
        }
    }

    func testReplaysTheCommittedArchiveNextToThisFile() async throws {
        try useArchive("baseClassUser")
        let reply = try await send(session, "GET", "https://api.example.com/users/7")
        XCTAssertEqual(String(decoding: reply.body, as: UTF8.self), #"{"id":7,"name":"Hopper"}"#)
    }
}
