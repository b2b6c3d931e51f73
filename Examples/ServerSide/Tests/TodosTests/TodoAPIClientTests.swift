import Foundation
import MockNetworkServer
import MockNetworkTesting
import Testing
import Todos

/// `TodoAPIClient`, whose requests go through the client swift-openapi-generator made and its
/// AsyncHTTPClient transport, against the test's registry served over HTTP as
/// `https://api.example.com`: only the server URL is the test's.
@Suite(.mockNetwork, .timeLimit(.minutes(1)))
struct TodoAPIClientTests {
    @Test func aDocumentedAnswerIsDecoded() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos?done=false") { _ in
            .json(#"[{"id": 2, "title": "bread", "done": false}]"#)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        let todos = try await withHTTPClient { httpClient in
            try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).todos(done: false)
        }

        #expect(todos == [Todo(id: 2, title: "bread", done: false)])
    }

    @Test func aDocumentedNotFoundIsTheClientsError() async throws {
        let mocks = MockRegistry.current
        mocks.register(.url("https://api.example.com/todos/{id}")) { _, parameters in
            .json(#"{"message": "no todo \#(parameters["id"] ?? "?")"}"#, status: 404)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        await #expect(throws: TodoError.notFound(id: 9)) {
            try await withHTTPClient { httpClient in
                try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).todo(id: 9)
            }
        }
    }

    @Test func aRefusalCarriesTheServicesReason() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos", method: "POST") { _ in
            .json(#"{"message": "a title is needed"}"#, status: 422)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        await #expect(throws: TodoError.refused("a title is needed")) {
            try await withHTTPClient { httpClient in
                try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).add(title: "", requestID: "r-1")
            }
        }
    }

    @Test func anUndocumentedStatusCarriesTheServersText() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos/1") { _ in .text("overloaded", status: 503) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        await #expect(throws: TodoError.unexpectedStatus(503, body: "overloaded")) {
            try await withHTTPClient { httpClient in
                try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).todo(id: 1)
            }
        }
    }

    @Test func theHeaderAndBodyItSendsAreCheckedInTheHandler() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos", method: "POST") { request in
            #expect(request.value(forHTTPHeaderField: "X-Request-ID") == "r-7")
            #expect(request.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)
            let sent = try JSONDecoder().decode([String: String].self, from: request.httpBody ?? Data())
            #expect(sent == ["title": "eggs"])
            return .json(#"{"id": 3, "title": "eggs", "done": false}"#, status: 201)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        let added = try await withHTTPClient { httpClient in
            try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).add(title: "eggs", requestID: "r-7")
        }

        #expect(added == Todo(id: 3, title: "eggs", done: false))
        #expect(mocks.requests(matching: .url("https://api.example.com/todos").method("POST")).count == 1)
    }

    @Test func anUnmatchedRequestGetsThePackagesReportAndFailsTheTest() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos/{id}") { _ in .json("{}") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])

        let error = await #expect(throws: TodoError.self) {
            try await withHTTPClient { httpClient in
                try await TodoAPIClient(serverURL: server.url, httpClient: httpClient).todos()
            }
        }

        guard case .unexpectedStatus(let status, let body) = error else {
            Issue.record("expected .unexpectedStatus, got \(String(describing: error))")
            return
        }
        #expect(status == 404)
        #expect(body.hasPrefix("MockNetwork: no handler for GET https://api.example.com/todos"))
        // The test would fail at its end with this report; `verify()` reports it now, where the
        // test can show it is the failure it expects.
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("MockNetwork: no handler for GET") }
        }
    }
}
