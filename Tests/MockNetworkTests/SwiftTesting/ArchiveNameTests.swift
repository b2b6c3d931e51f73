import Testing

@testable import MockNetworkTesting

/// How a parameterized case's arguments become a file name.
struct ArchiveNameTests {
    @Test func plainArgumentsAreTheNameAsTheyAre() {
        #expect(ArchiveNames.fileName(describing: ["1"]) == "1")
        #expect(ArchiveNames.fileName(describing: [#""ada""#]) == "ada")
        #expect(ArchiveNames.fileName(describing: ["2", #""api.example.com""#, "-1.5"]) == "2_api.example.com_-1.5")
        #expect(ArchiveNames.fileName(describing: [".admin", "true"]) == "admin_true", "an enum's case, a Bool")
    }

    @Test func otherArgumentsEndInAHashSoThatNoTwoCasesShareAFile() {
        let spaced = ArchiveNames.fileName(describing: [#""a b""#])
        let slashed = ArchiveNames.fileName(describing: [#""a/b""#])
        let underscored = ArchiveNames.fileName(describing: [#""a_b""#])
        #expect(spaced.hasPrefix("a_b-") && slashed.hasPrefix("a_b-") && underscored.hasPrefix("a_b-"))
        #expect(Set([spaced, slashed, underscored]).count == 3)
        // Split between arguments differently, or in another case (one file on a case-insensitive disk).
        #expect(
            ArchiveNames.fileName(describing: [#""a_b""#, #""c""#])
                != ArchiveNames.fileName(describing: [#""a""#, #""b_c""#]))
        #expect(ArchiveNames.fileName(describing: [#""Ada""#]).hasPrefix("Ada-"))
        #expect(ArchiveNames.fileName(describing: [#""東京""#]) != ArchiveNames.fileName(describing: [#""大阪""#]))
        #expect(ArchiveNames.fileName(describing: [#""東京""#]).hasPrefix("case-"))
        #expect(
            ArchiveNames.fileName(describing: [#"".."""#]).hasPrefix("case_.._-"), "never a name that ends in a dot")
    }

    @Test func aLongNameIsCutAndEndsInAHashOfTheWhole() {
        let long = String(repeating: "x", count: 100)
        let name = ArchiveNames.fileName(describing: [long])
        #expect(name.count <= 64)
        #expect(name.hasPrefix(String(repeating: "x", count: 47) + "-"))
        #expect(name != ArchiveNames.fileName(describing: [long + "y"]), "texts that differ get names that differ")
        #expect(name == ArchiveNames.fileName(describing: [long]), "the same in every run")
    }

    enum Role: Sendable { case admin, guest }

    @Test(arguments: [(Role.admin, 1), (Role.guest, 22)])
    func aCasesArgumentsAreReadAsSwiftTestingDescribesThem(role: Role, number: Int) throws {
        let testCase = try #require(Test.Case.current)
        let arguments = try #require(ArchiveNames.arguments(of: testCase))
        #expect(arguments == [".\(role)", "\(number)"])
        #expect(ArchiveNames.fileName(describing: arguments) == "\(role)_\(number)")
    }
}
