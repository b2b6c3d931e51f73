import MockNetworkTesting
import XCTest

/// The record command names a test the same way on every platform, whatever XCTest calls it.
final class TestNameTests: XCTestCase {
    func testApplesAndLinuxsNamesForAnXCTestGiveTheSameFilter() {
        XCTAssertEqual(
            ArchiveSupport.filter(forXCTest: "-[MockNetworkTests.ArchiveTests testRecordsUser]"),
            "ArchiveTests/testRecordsUser")
        XCTAssertEqual(ArchiveSupport.filter(forXCTest: "ArchiveTests.testRecordsUser"), "ArchiveTests/testRecordsUser")
        XCTAssertEqual(
            ArchiveSupport.filter(forXCTest: "-[ArchiveTests testRecordsUser]"), "ArchiveTests/testRecordsUser")
    }

    func testThisTestsOwnNameGivesItsFilter() {
        XCTAssertEqual(ArchiveSupport.filter(forXCTest: name), "TestNameTests/testThisTestsOwnNameGivesItsFilter")
    }
}
