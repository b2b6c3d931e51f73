import Foundation
import MockNetwork
import MockNetworkTesting
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One registration surface: every form of `register` is written once, on `MockRegistering`, which
/// `MockRegistry` and `MockNetworkTestCase` both are, so what a user reads for one compiles on the other.
final class RegistrationSurfaceTests: MockNetworkTestCase {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The parameter lists of the `public func register` declarations in the Swift files below
    /// `folder`, whitespace normalized, and whether each is deprecated.
    private func registerForms(below folder: String) throws -> [(parameters: String, deprecated: Bool)] {
        let base = root.appendingPathComponent(folder)
        let files = (FileManager.default.enumerator(atPath: base.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".swift") }
        var forms: [(parameters: String, deprecated: Bool)] = []
        for file in files {
            let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
            var rest = Substring(text)
            while let start = rest.range(of: "public func register") {
                guard let end = rest[start.upperBound...].range(of: ") -> MockRoute") else { break }
                // The attributes between the declaration before and this one.
                let attributes = rest[..<start.lowerBound].components(separatedBy: "}").last ?? ""
                let parameters = rest[start.upperBound..<end.lowerBound]
                forms.append(
                    (
                        parameters.split(whereSeparator: \.isWhitespace).joined(separator: " "),
                        attributes.contains("deprecated")
                    ))
                rest = rest[end.upperBound...]
            }
        }
        return forms.sorted { $0.parameters < $1.parameters }
    }

    func testTheBaseClassRegistersThroughTheRegistrysOneMechanism() throws {
        let core = try registerForms(below: "Sources/MockNetwork")
        let current = core.filter { !$0.deprecated }
        // A handler, the tutorials' shape, async, sequence, answer, and a template's
        // (request, parameters) sync and async.
        XCTAssertEqual(current.count, 7, "the core's forms: \(current.map(\.parameters))")
        XCTAssertEqual(core.count - current.count, 12, "the String and URL forms kept deprecated")
        // GraphQL's (request, operation) sync and async, added to MockRegistering by its product.
        let graphQL = try registerForms(below: "Sources/MockNetworkGraphQL")
        XCTAssertEqual(graphQL.filter { !$0.deprecated }.count, 2, "\(graphQL.map(\.parameters))")
        XCTAssertTrue(
            try String(
                contentsOf: root.appendingPathComponent("Sources/MockNetworkGraphQL/MockRegistry+GraphQL.swift"),
                encoding: .utf8
            ).contains("extension MockRegistering {"))
        for form in current + graphQL {
            XCTAssertTrue(form.parameters.contains("_ match: RequestMatch, method: String? = nil"), form.parameters)
        }
        XCTAssertEqual(
            try registerForms(below: "Sources/MockNetworkTesting").map(\.parameters), [],
            "MockNetworkTestCase gets every form as a MockRegistering: declare none of its own")
        XCTAssertTrue((self as Any) is any MockRegistering)
        XCTAssertTrue(mockRegistry === mocks)
    }

    /// The deprecated forms that take a `String` or `URL` value still register, on the base class too,
    /// and a closure that only throws is not ambiguous among them. (Deprecated itself, so that calling
    /// them here warns of nothing.)
    @available(*, deprecated, message: "calls the deprecated String and URL forms on purpose")
    func testTheDeprecatedStringAndURLFormsStillRegister() async throws {
        let text = "https://api.example.com/text"
        let failing = "https://api.example.com/failing"
        let tuple: MockHandler = { request in
            (HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: nil)!, Data("t".utf8))
        }
        register(text, method: "GET") { _ in .text("text") }
        register(failing) { _ in throw URLError(.cannotParseResponse) }
        register(try url("https://api.example.com/tuple"), tuple)
        mocks.register(Substring("https://api.example.com/users/{id}")) { _, parameters in
            .text(parameters["id"] ?? "")
        }
        register(try url("https://api.example.com/answer"), answer: .status(204))

        let first = try await send(session, "GET", text)
        let created = try await send(session, "GET", "https://api.example.com/tuple")
        let user = try await send(session, "GET", "https://api.example.com/users/7")
        let answered = try await send(session, "GET", "https://api.example.com/answer")
        var thrown: URLError?
        do { _ = try await send(session, "GET", failing) } catch let error as URLError { thrown = error }

        XCTAssertEqual([first.text, user.text], ["text", "7"])
        XCTAssertEqual([created.status, answered.status], [201, 204])
        XCTAssertEqual(thrown?.code, .cannotParseResponse)
    }

    /// The two forms a new user reached for on the base class and did not find.
    func testATemplateHandlerAndASequenceRegisterOnTheBaseClass() async throws {
        register("https://api.example.com/users/{id}") { _, parameters in
            .text("user \(parameters["id"] ?? "?")")
        }
        register(.url("https://api.example.com/feed"), sequence: [.status(503), .json(#"{"items": []}"#)])

        let user = try await send(session, "GET", "https://api.example.com/users/7")
        let first = try await send(session, "GET", "https://api.example.com/feed")
        let second = try await send(session, "GET", "https://api.example.com/feed")

        XCTAssertEqual(user.text, "user 7")
        XCTAssertEqual([first.status, second.status], [503, 200])
        XCTAssertEqual(second.text, #"{"items": []}"#)
    }
}
