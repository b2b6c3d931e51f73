import Testing

@testable import MockNetworkTesting

/// How a parameterized case's arguments become a file name.
struct ArchiveNameTests {
    @Test func argumentsBecomeAFileNameAnyFileSystemTakes() {
        #expect(ArchiveNames.fileName(describing: "1") == "1")
        #expect(ArchiveNames.fileName(describing: #""bob lee""#) == "bob_lee")
        #expect(ArchiveNames.fileName(describing: #"2, "a/b\c: d""#) == "2_a_b_c_d")
        #expect(ArchiveNames.fileName(describing: #""..""#) == "case_..")
        #expect(ArchiveNames.fileName(describing: "\"é\"") == "case")
    }

    @Test func aLongNameIsCutAndEndsInAHashOfTheWhole() {
        let long = String(repeating: "x", count: 100)
        let name = ArchiveNames.fileName(describing: long)
        #expect(name.count <= 64)
        #expect(name.hasPrefix(String(repeating: "x", count: 47) + "-"))
        #expect(name != ArchiveNames.fileName(describing: long + "y"), "texts that differ get names that differ")
        #expect(name == ArchiveNames.fileName(describing: long), "the same in every run")
    }
}
