// `Process` exists where a test can start a program: macOS, Linux and Windows, not iOS and the like.
#if os(macOS) || os(Linux) || os(Windows)
    import Foundation
    import MockNetwork
    import MockNetworkServer
    import MockNetworkTesting
    import XCTest

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// `curl`, as a script drives it, against a served registry: a query, a body and a header the
    /// handler checks, server-sent events read as they come, and an unmatched request, answered `404`
    /// and reported at the end of the test at the registration nearest to it.
    final class CurlClientTests: FailureCapturingTestCase {
        /// The line of the registration an unmatched request's failure points at.
        private var nearestLine: Int?

        override func tearDown() {
            capturing = true
            super.tearDown()
            capturing = false
            if let nearestLine {
                XCTAssertEqual(captured.count, 1, "\(captured)")
                XCTAssertTrue(
                    captured.first?.hasPrefix("MockNetwork: no handler for GET https://api.example.com/todo?done=1")
                        == true, "\(captured)")
                XCTAssertEqual(capturedAt.first??.line, nearestLine, "reported at the user's line")
            } else {
                XCTAssertEqual(captured, [])
            }
        }

        func testAGETWithAQueryIsAnsweredByItsHandler() async throws {
            register(.url("https://api.example.com/todos", query: .ignored)) { request in
                .json(#"[{"done": \#(request.url?.query == "done=true")}]"#, headers: ["X-Count": "1"])
            }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            let answer = try await curl(server.url("/todos?done=true"))
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.headers["content-type"], "application/json")
            XCTAssertEqual(answer.headers["x-count"], "1")
            XCTAssertEqual(answer.headers["content-length"], "16")
            XCTAssertEqual(answer.body, #"[{"done": true}]"#)
            XCTAssertEqual(mocks.requests.map(\.url.absoluteString), ["https://api.example.com/todos?done=true"])
            XCTAssertEqual(mocks.requests.first?.headers["User-Agent"].map { $0.hasPrefix("curl/") }, true)
        }

        func testAPOSTsBodyAndHeaderAreCheckedInsideTheHandler() async throws {
            register("https://api.example.com/todos", method: "POST") { request in
                // Asserted where the request is answered, on the handler's thread, while curl waits.
                XCTAssertEqual(request.value(forHTTPHeaderField: "X-Request-ID"), "r-42")
                XCTAssertEqual(request.value(forHTTPHeaderField: "Content-Type"), "application/json")
                let body = request.httpBody.map { String(decoding: $0, as: UTF8.self) }
                XCTAssertEqual(body, #"{"title":"milk"}"#)
                return .json(#"{"id": 7, "title": "milk"}"#, status: 201)
            }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            let answer = try await curl(
                server.url("/todos"),
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "X-Request-ID: r-42",
                "--data-binary", #"{"title":"milk"}"#)
            XCTAssertEqual(answer.status, 201)
            XCTAssertEqual(answer.body, #"{"id": 7, "title": "milk"}"#)
            let posted = mocks.requests(matching: .url("https://api.example.com/todos").method("POST"))
            XCTAssertEqual(posted.map { String(decoding: $0.body, as: UTF8.self) }, [#"{"title":"milk"}"#])
        }

        func testServerSentEventsReachCurlInChunksOverTime() async throws {
            let events = (1...3).map { ServerSentEvent(id: "\($0)", data: "change \($0)") }
            register("https://api.example.com/changes") { _ in .events(events, every: .milliseconds(150)) }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            let answer = try await curl(
                server.url("/changes"), "--no-buffer", "--write-out", "\n%{time_starttransfer} %{time_total}")
            XCTAssertEqual(answer.status, 200)
            XCTAssertEqual(answer.headers["content-type"], "text/event-stream")
            XCTAssertEqual(answer.headers["transfer-encoding"], "chunked", "a stream's length is not known")
            XCTAssertNil(answer.headers["content-length"])
            let lines = answer.body.components(separatedBy: "\n")
            let body = lines.dropLast().joined(separator: "\n")
            XCTAssertEqual(body, try events.map { try $0.framed() }.joined(), "curl joined the chunks")
            let times = try XCTUnwrap(lines.last).split(separator: " ").compactMap { Double($0) }
            XCTAssertEqual(times.count, 2, answer.body)
            // The last event leaves two intervals (300 ms) after the first byte: the body came over time.
            XCTAssertGreaterThanOrEqual((times.last ?? 0) - (times.first ?? 0), 0.15, "\(times)")
        }

        func testAnUnmatchedRequestGets404AndIsReportedAtTheNearestRegistration() async throws {
            nearestLine = #line + 1
            register("https://api.example.com/todos") { _ in .json("[]") }
            let server = try MockServer(serving: mocks, as: ["https://api.example.com"])
            let answer = try await curl(server.url("/todo?done=1"))
            XCTAssertEqual(answer.status, 404)
            XCTAssertEqual(answer.headers["content-type"], "text/plain; charset=utf-8")
            XCTAssertTrue(
                answer.body.hasPrefix("MockNetwork: no handler for GET https://api.example.com/todo?done=1"),
                answer.body)
            XCTAssertTrue(answer.body.contains("https://api.example.com/todos"), "the nearest match: \(answer.body)")
        }

        // MARK: Running curl

        /// Runs blocking work on a thread of its own, not Dispatch's, whose timers pace the served
        /// answers (see `DemoProcess.run`).
        private func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
            }
        }

        private struct Answer {
            var status = 0
            /// The response's header fields by lowercased name.
            var headers: [String: String] = [:]
            var body = ""
        }

        /// Where `curl` is, from `PATH` or the usual places; the test is skipped without it.
        private func curlProgram() throws -> URL {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
            let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/local/bin"]
            guard let found = folders.map({ $0 + "/curl" }).first(where: FileManager.default.isExecutableFile)
            else {
                throw XCTSkip("curl is not installed: install it (apt-get install curl) to run the curl tests")
            }
            return URL(fileURLWithPath: found)
        }

        /// Runs `curl` on `url` (always 127.0.0.1, never through a proxy) with `options`, bounded by
        /// a timeout after which it is terminated; returns the response it printed.
        private func curl(_ url: URL, _ options: String...) async throws -> Answer {
            XCTAssertEqual(url.host, "127.0.0.1")
            let program = try curlProgram()
            let arguments =
                ["--silent", "--show-error", "--include", "--noproxy", "*", "--max-time", "10"] + options + [
                    url.absoluteString
                ]
            let run = try await onThreadOfItsOwn {
                try DemoProcess.run(program, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"], timeout: 20)
            }
            XCTAssertEqual(run.status, 0, "curl failed: \(run.errors)")
            // `--include` prints the head, a blank line, then the body.
            guard let end = run.output.range(of: "\r\n\r\n") else {
                XCTFail("curl printed no response head: \(run.output)")
                return Answer()
            }
            var answer = Answer(body: String(run.output[end.upperBound...]))
            let head = run.output[..<end.lowerBound].components(separatedBy: "\r\n")
            answer.status = head.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                answer.headers[line[..<colon].lowercased()] = value
            }
            return answer
        }
    }
#endif
