import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One registration surface: every form of `MockRegistry.register` is on `MockNetworkTestCase`
/// too, with the same parameters, so what a user reads for one compiles on the other.
final class RegistrationSurfaceTests: MockNetworkTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The parameter lists of the `public func register(` declarations in the Swift files below
    /// `folder`, whitespace normalized.
    private func registerForms(below folder: String) throws -> [String] {
        let base = root.appendingPathComponent(folder)
        let files = (FileManager.default.enumerator(atPath: base.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        var forms: [String] = []
        for file in files {
            let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            var rest = Substring(text)
            while let start = rest.range(of: "public func register(") {
                guard let end = rest[start.upperBound...].range(of: ") -> MockRoute") else { break }
                let parameters = rest[start.upperBound..<end.lowerBound]
                forms.append(parameters.split(whereSeparator: \.isWhitespace).joined(separator: " "))
                rest = rest[end.upperBound...]
            }
        }
        return forms.sorted()
    }

    func testTheBaseClassHasEveryFormOfTheRegistry() throws {
        let registry =
            try (registerForms(below: "Sources/MockNetwork") + registerForms(below: "Sources/MockNetworkGraphQL"))
            .sorted()
        let baseClass = try registerForms(below: "Sources/MockNetworkTesting")
        XCTAssertEqual(registry.count, 21, "the registry's forms: \(registry)")
        let missing = Set(registry).subtracting(baseClass)
        let extra = Set(baseClass).subtracting(registry)
        XCTAssertEqual(missing, [], "forms of MockRegistry.register missing on MockNetworkTestCase: add them there")
        XCTAssertEqual(extra, [], "forms of MockNetworkTestCase.register the registry lacks")
        XCTAssertEqual(registry, baseClass)
    }

    /// The two forms a new user reached for on the base class and did not find.
    func testATemplateHandlerAndASequenceRegisterOnTheBaseClass() async throws {
        register("https://api.example.com/users/{id}") { _, parameters in
            try .text("user \(parameters["id"] ?? "?")")
        }
        try register(.url("https://api.example.com/feed"), sequence: [.status(503), .json(#"{"items": []}"#)])

        let user = try await send(session, "GET", "https://api.example.com/users/7")
        let first = try await send(session, "GET", "https://api.example.com/feed")
        let second = try await send(session, "GET", "https://api.example.com/feed")

        XCTAssertEqual(user.text, "user 7")
        XCTAssertEqual([first.status, second.status], [503, 200])
        XCTAssertEqual(second.text, #"{"items": []}"#)
    }
}
