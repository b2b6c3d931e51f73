import Foundation
import MockNetworkServer
import MockNetworkTesting
import Testing
import Todos

/// `TodoClient`, which calls the service with AsyncHTTPClient, against the test's registry served
/// over HTTP as `https://api.example.com`: the client's own code runs unchanged, only its base URL
/// points at the server.
@Suite(.mockNetwork, .timeLimit(.minutes(1)))
struct TodoClientTests {
    @Test func decodesTheTodosItAskedFor() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos?done=true") { _ in
            .json(#"[{"id": 1, "title": "milk", "done": true}]"#)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let done = try await withHTTPClient { httpClient in
            try await TodoClient(baseURL: server.url, httpClient: httpClient).todos(done: true)
        }
        #expect(done == [Todo(id: 1, title: "milk", done: true)])
        #expect(mocks.requests.map(\.url.absoluteString) == ["https://api.example.com/todos?done=true"])
    }

    @Test func aMissingTodoIsTheClientsNotFoundError() async throws {
        let mocks = MockRegistry.current
        mocks.register(.url("https://api.example.com/todos/{id}")) { _ in
            .json(#"{"message": "no such todo"}"#, status: 404)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        await #expect(throws: TodoError.notFound(id: 9)) {
            try await withHTTPClient { httpClient in
                try await TodoClient(baseURL: server.url, httpClient: httpClient).todo(id: 9)
            }
        }
    }

    @Test func anUnexpectedStatusCarriesTheServersText() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos") { _ in .text("down for maintenance", status: 503) }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        await #expect(throws: TodoError.unexpectedStatus(503, body: "down for maintenance")) {
            try await withHTTPClient { httpClient in
                try await TodoClient(baseURL: server.url, httpClient: httpClient).todos()
            }
        }
    }

    @Test func theBodyAndHeaderItSendsAreCheckedInTheHandler() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos", method: "POST") { request in
            #expect(request.value(forHTTPHeaderField: "X-Request-ID") == "r-42")
            #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
            let sent = try JSONDecoder().decode([String: String].self, from: request.httpBody ?? Data())
            #expect(sent == ["title": "milk"])
            return .json(#"{"id": 7, "title": "milk", "done": false}"#, status: 201)
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let added = try await withHTTPClient { httpClient in
            try await TodoClient(baseURL: server.url, httpClient: httpClient).add(title: "milk", requestID: "r-42")
        }
        #expect(added == Todo(id: 7, title: "milk", done: false))
        #expect(mocks.requests(matching: .url("https://api.example.com/todos").method("POST")).count == 1)
    }

    @Test func changesArriveOneEventAtATime() async throws {
        let mocks = MockRegistry.current
        let events = (1...3).map { ServerSentEvent(id: "\($0)", data: "todo \($0) changed") }
        mocks.register("https://api.example.com/todos/changes") { _ in
            .events(events, every: .milliseconds(150))
        }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        let clock = ContinuousClock()
        let seen = try await withHTTPClient { httpClient in
            let changes = try await TodoClient(baseURL: server.url, httpClient: httpClient).changes()
            let start = clock.now
            var seen: [(change: String, after: Duration)] = []
            for try await change in changes { seen.append((change, start.duration(to: clock.now))) }
            return seen
        }
        #expect(seen.map(\.change) == ["todo 1 changed", "todo 2 changed", "todo 3 changed"])
        // The last event leaves the server two intervals (300 ms) after the first: the client read
        // the body as it came, not in one piece at the end.
        let spread = (seen.last?.after ?? .zero) - (seen.first?.after ?? .zero)
        #expect(spread >= .milliseconds(150), "\(seen)")
    }

    @Test func anUnmatchedRequestIsAnsweredWith404AndFailsTheTest() async throws {
        let mocks = MockRegistry.current
        mocks.register("https://api.example.com/todos") { _ in .json("[]") }
        let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
        await #expect(throws: TodoError.notFound(id: 3)) {
            try await withHTTPClient { httpClient in
                try await TodoClient(baseURL: server.url, httpClient: httpClient).todo(id: 3)
            }
        }
        // The test would fail at its end with this report; `verify()` reports it now, where the
        // test can show it is the failure it expects.
        withKnownIssue {
            mocks.verify()
        } matching: { issue in
            issue.comments.contains {
                $0.rawValue.hasPrefix("MockNetwork: no handler for GET https://api.example.com/todos/3")
            }
        }
    }
}
