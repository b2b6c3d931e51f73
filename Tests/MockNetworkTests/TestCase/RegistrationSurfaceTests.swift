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
        // A handler, the tutorials' shape, async, sequence, answer, and a template's
        // (request, parameters) sync and async: seven, each taking a match, a String or a URL.
        XCTAssertEqual(core.count, 7, "the core's forms: \(core.map(\.parameters))")
        XCTAssertEqual(core.filter(\.deprecated).count, 0, "no form is deprecated: a URL value is a first-class target")
        // GraphQL's (request, operation) sync and async, added to MockRegistering by its product.
        let graphQL = try registerForms(below: "Sources/MockNetworkGraphQL")
        XCTAssertEqual(graphQL.count, 2, "\(graphQL.map(\.parameters))")
        XCTAssertTrue(
            try String(
                contentsOf: root.appendingPathComponent("Sources/MockNetworkGraphQL/MockRegistry+GraphQL.swift"),
                encoding: .utf8
            ).contains("extension MockRegistering {"))
        for form in core + graphQL {
            XCTAssertTrue(
                form.parameters.contains("_ match: any RequestMatchConvertible, method: String? = nil"), form.parameters
            )
        }
        XCTAssertEqual(
            try registerForms(below: "Sources/MockNetworkTesting").map(\.parameters), [],
            "MockNetworkTestCase gets every form as a MockRegistering: declare none of its own")
        XCTAssertTrue((self as Any) is any MockRegistering)
        XCTAssertTrue(mockRegistry === mocks)
    }

    /// The card's shape, a handler per URL held in a value, on the base class: `String`, `Substring`
    /// and `URL` values and literals, in every form, with no warning (the suite builds with warnings
    /// as errors), and a closure that only throws is not ambiguous among them.
    func testURLAndStringValuesRegisterInEveryForm() async throws {
        let text = "https://api.example.com/text"
        let failing = "https://api.example.com/failing"
        let tuple: MockHandler = { request in
            (HTTPURLResponse(url: request.url!, statusCode: 201, httpVersion: nil, headerFields: nil)!, Data("t".utf8))
        }
        register(text, method: "GET") { _ in .text("text") }
        register(failing) { _ in throw URLError(.cannotParseResponse) }
        register(try url("https://api.example.com/tuple"), tuple)
        register(try url("https://api.example.com/tuple-closure")) { request in
            (HTTPURLResponse(url: request.url!, statusCode: 202, httpVersion: nil, headerFields: nil)!, Data())
        }
        register(try url("https://api.example.com/async")) { _ async in .text("async") }
        register(Substring("https://api.example.com/users/{id}")) { _, parameters in
            .text(parameters["id"] ?? "")
        }
        let template = "https://api.example.com/posts/{id}"
        register(template) { _, parameters async in .text("post " + (parameters["id"] ?? "")) }
        register(try url("https://api.example.com/answer"), answer: .status(204))
        register(try url("https://api.example.com/sequence"), sequence: [.status(503), .status(200)])

        let first = try await send(session, "GET", text)
        let created = try await send(session, "GET", "https://api.example.com/tuple")
        let accepted = try await send(session, "GET", "https://api.example.com/tuple-closure")
        let async = try await send(session, "GET", "https://api.example.com/async")
        let user = try await send(session, "GET", "https://api.example.com/users/7")
        let post = try await send(session, "GET", "https://api.example.com/posts/8")
        let answered = try await send(session, "GET", "https://api.example.com/answer")
        let retried = [
            try await send(session, "GET", "https://api.example.com/sequence").status,
            try await send(session, "GET", "https://api.example.com/sequence").status,
        ]
        var thrown: URLError?
        do { _ = try await send(session, "GET", failing) } catch let error as URLError { thrown = error }

        XCTAssertEqual([first.text, async.text, user.text, post.text], ["text", "async", "7", "post 8"])
        XCTAssertEqual([created.status, accepted.status, answered.status], [201, 202, 204])
        XCTAssertEqual(retried, [503, 200])
        XCTAssertEqual(thrown?.code, .cannotParseResponse)
    }

    /// A template handler that reads its parameters, in the shapes a newcomer wrote on the base class
    /// (a JSON text, an `Encodable`, a dictionary, statements), each also on `mocks`: what compiles
    /// on one surface compiles on the other.
    func testTemplateHandlersCompileOnBothSurfaces() async throws {
        struct User: Encodable { let id: String }
        register("https://api.example.com/a/{id}") { _, parameters in .json(#"{"id": "\#(parameters["id"]!)"}"#) }
        mocks.register("https://api.example.com/b/{id}") { _, parameters in .json(#"{"id": "\#(parameters["id"]!)"}"#) }
        register("https://api.example.com/c/{id}") { _, parameters in .json(User(id: parameters["id"]!)) }
        mocks.register("https://api.example.com/d/{id}") { _, parameters in .json(User(id: parameters["id"]!)) }
        register("https://api.example.com/e/{id}") { _, parameters in .json(["id": parameters["id"]]) }
        mocks.register("https://api.example.com/f/{id}") { _, parameters in .json(["id": parameters["id"]]) }
        register("https://api.example.com/g/{id}", method: "GET", expectedCalls: 1) { request, parameters in
            guard let id = parameters["id"] else { return .status(404) }
            XCTAssertEqual(request.httpMethod, "GET")
            return .json(#"{"id": "\#(id)"}"#)
        }
        mocks.register("https://api.example.com/h/{id}", method: "GET", expectedCalls: 1) { request, parameters in
            guard let id = parameters["id"] else { return .status(404) }
            XCTAssertEqual(request.httpMethod, "GET")
            return .json(#"{"id": "\#(id)"}"#)
        }

        var bodies: [String] = []
        for path in ["a", "b", "c", "d", "e", "f", "g", "h"] {
            bodies.append(try await send(session, "GET", "https://api.example.com/\(path)/7").text)
        }
        XCTAssertEqual(
            bodies,
            Array(repeating: #"{"id": "7"}"#, count: 8).enumerated().map { index, text in
                (2...5).contains(index) ? #"{"id":"7"}"# : text
            })
    }

    /// The README's rule: a handler registered with no method answers every method; `method:`
    /// narrows it, and then another method is unmatched.
    func testAHandlerWithNoMethodAnswersEveryMethod() async throws {
        register("https://api.example.com/any") { request in .text(request.httpMethod ?? "?") }
        register("https://api.example.com/get", method: "GET") { _ in .text("get") }

        var methods: [String] = []
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
            methods.append(try await send(session, method, "https://api.example.com/any").text)
        }
        let get = try await send(session, "GET", "https://api.example.com/get")
        var post: URLError?
        do { _ = try await send(session, "POST", "https://api.example.com/get") } catch let error as URLError {
            post = error
        }

        XCTAssertEqual(methods, ["GET", "POST", "PUT", "DELETE", "PATCH"])
        XCTAssertEqual(get.text, "get")
        XCTAssertEqual(post?.code, .resourceUnavailable)
        XCTAssertEqual(mocks.takeFailures().count, 1, "the POST was unmatched")
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
