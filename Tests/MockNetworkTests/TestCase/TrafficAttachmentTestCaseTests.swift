import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What `MockNetworkTestCase.tearDown` attaches when the test failed (it checks the test's run for
/// failures, which a test of it cannot have and still pass, so these call the attaching step itself).
final class TrafficAttachmentTestCaseTests: FailureCapturingTestCase {

    #if canImport(FoundationNetworking)
        /// On Linux, a file, named by a failure of the test.
        func testTheTrafficIsAFileAFailureNames() async throws {
            register("https://api.example.com/user") { _ in .json(#"{"name": "Ada"}"#) }
            _ = try await send(session, "GET", "https://api.example.com/user", headers: ["Cookie": "id=secret"])

            capturing = true
            let note = TrafficAttachment.attach(mocks, to: self)
            capturing = false

            let file = FileManager.default.temporaryDirectory
                .appendingPathComponent("MockNetwork-traffic")
                .appendingPathComponent("traffic-TrafficAttachmentTestCaseTests.testTheTrafficIsAFileAFailureNames.har")
            let expected =
                "MockNetwork: the test failed; what the network saw (1 request) is in \(file.path), a HAR file: "
                + "open it in a browser's network panel. (Off with MOCKNETWORK_ATTACH_TRAFFIC=0 or "
                + "mocks.attachesTrafficOnFailure = false.)"
            // The note is no failure of its own (a failed test would count one failure more): the end of
            // the test adds it to MockNetwork's first failure, or prints it.
            XCTAssertEqual(captured, [])
            XCTAssertEqual(note, expected)
            let first = MockFailure(message: "MockNetwork: no handler for GET x.", location: nil)
            XCTAssertEqual(
                Lifecycle.withNote(note, [first]).map(\.message), ["MockNetwork: no handler for GET x.\n" + expected])
            let archive = try HTTPArchive(contentsOf: file)
            XCTAssertEqual(archive.entries.map(\.request.url), ["https://api.example.com/user"])
            XCTAssertEqual(archive.entries.first?.response.body.text, #"{"name": "Ada"}"#)
            // Masked, not dropped.
            XCTAssertEqual(archive.entries.first?.request.headers.first { $0.name == "Cookie" }?.value, "REDACTED")
            try FileManager.default.removeItem(at: file)
        }
    #endif

    #if canImport(FoundationNetworking)
        /// A test that passes removes the traffic file an earlier failed run of it left.
        func testAPassingTestRemovesTheFileAnEarlierFailedRunLeft() throws {
            register("https://api.example.com/user") { _ in .status(204) }
            _ = textWaitingOnThisThread(session, try url("https://api.example.com/user"))
            let note = try XCTUnwrap(TrafficAttachment.attach(mocks, to: self))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("MockNetwork-traffic")
                .appendingPathComponent(
                    "traffic-TrafficAttachmentTestCaseTests.testAPassingTestRemovesTheFileAnEarlierFailedRunLeft.har")
            XCTAssertTrue(note.contains(file.path))
            XCTAssertTrue(FileManager.default.fileExists(atPath: file.path))
            TrafficAttachment.removeEarlierFile(of: self)
            XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        }
    #endif

    func testABlankTrafficFolderCountsAsUnset() {
        let variable = TrafficAttachment.directoryVariable
        let earlier = ProcessInfo.processInfo.environment[variable]
        defer {
            if let earlier { setenv(variable, earlier, 1) } else { unsetenv(variable) }
        }
        for blank in ["", "  "] {
            setenv(variable, blank, 1)
            XCTAssertNil(TrafficAttachment.directory, "\"\(blank)\" must not mean the current folder")
        }
        setenv(variable, "/tmp/traffic", 1)
        XCTAssertEqual(TrafficAttachment.directory, "/tmp/traffic")
    }

    func testNothingIsAttachedWhenTurnedOffOrWithNoTraffic() throws {
        capturing = true
        TrafficAttachment.attach(mocks, to: self)
        mocks.attachesTrafficOnFailure = false
        register("https://api.example.com/user") { _ in .status(204) }
        _ = textWaitingOnThisThread(session, try url("https://api.example.com/user"))
        TrafficAttachment.attach(mocks, to: self)
        capturing = false
        XCTAssertEqual(captured, [])
    }
}
