import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A mocked 401 with a Basic challenge: the delegate is asked as a server's 401 asks it, and the
/// request never hangs nor leaves for the network.
final class ChallengeTests: XCTestCase {
    /// A session delegate that answers every challenge the same way and counts them.
    final class Answering: NSObject, URLSessionTaskDelegate, Sendable {
        let disposition: URLSession.AuthChallengeDisposition
        let credential: URLCredential?
        let asked = Shared<[Int]>([])

        init(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential? = nil) {
            self.disposition = disposition
            self.credential = credential
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            asked.update { $0.append(challenge.previousFailureCount) }
            XCTAssertEqual(challenge.protectionSpace.realm, "reports")
            XCTAssertEqual(challenge.protectionSpace.authenticationMethod, NSURLAuthenticationMethodHTTPBasic)
            completionHandler(disposition, credential)
        }
    }

    /// A registry whose secret URL wants `ada:lovelace`; the loopback server behind the same URL
    /// must never hear of it.
    private func guarded(_ server: LoopbackServer) throws -> (MockRegistry, String, Shared<[String?]>) {
        let secret = try XCTUnwrap(server.url("/secret")).absoluteString
        let seen = Shared<[String?]>([])
        let mocks = MockRegistry()
        let expected = "Basic " + Data("ada:lovelace".utf8).base64EncodedString()
        mocks.register(.url(secret)) { request in
            let authorization = request.value(forHTTPHeaderField: "Authorization")
            seen.update { $0.append(authorization) }
            if authorization == expected { return .text("the report") }
            return .text("who are you?", status: 401, headers: ["WWW-Authenticate": #"Basic realm="reports""#])
        }
        return (mocks, secret, seen)
    }

    func testBasic401WithoutADelegateReachesTheClientAsA401() async throws {
        let server = try LoopbackServer(routes: [:])
        let (mocks, secret, seen) = try guarded(server)
        let reply = try await withWatchdog(10) { try await send(mocks.session, "GET", secret) }
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.text, "who are you?")
        XCTAssertEqual(seen.current, [nil])
        XCTAssertEqual(server.received, [])
    }

    func testBasic401WithDefaultHandlingReachesTheClientAsA401() async throws {
        let server = try LoopbackServer(routes: [:])
        let (mocks, secret, _) = try guarded(server)
        let delegate = Answering(.performDefaultHandling)
        let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await withWatchdog(10) { try await send(session, "GET", secret) }
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(delegate.asked.current, [0])
        XCTAssertEqual(server.received, [])
    }

    func testDelegatesCredentialGoesThroughTheHandlersNotTheNetwork() async throws {
        let server = try LoopbackServer(routes: [:])
        let (mocks, secret, seen) = try guarded(server)
        let delegate = Answering(.useCredential, URLCredential(user: "ada", password: "lovelace", persistence: .none))
        let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await withWatchdog(10) { try await send(session, "GET", secret) }
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.text, "the report")
        XCTAssertEqual(seen.current, [nil, "Basic YWRhOmxvdmVsYWNl"])
        XCTAssertEqual(delegate.asked.current, [0])
        XCTAssertEqual(server.received, [], "the retry reached the real server")
    }

    func testWrongCredentialIsAskedAgainWithTheFailureCount() async throws {
        let server = try LoopbackServer(routes: [:])
        let (mocks, secret, seen) = try guarded(server)
        let delegate = Answering(.useCredential, URLCredential(user: "ada", password: "wrong", persistence: .none))
        let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await withWatchdog(10) { try await send(session, "GET", secret) }
        XCTAssertEqual(reply.status, 401, "after the last attempt the 401 reaches the client")
        XCTAssertEqual(delegate.asked.current, Array(0..<16))
        XCTAssertEqual(seen.current.count, 17)
        XCTAssertEqual(server.received, [])
    }

    func testCancellingTheChallengeCancelsTheRequest() async throws {
        let server = try LoopbackServer(routes: [:])
        let (mocks, secret, _) = try guarded(server)
        let delegate = Answering(.cancelAuthenticationChallenge)
        let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let error = await thrownError { try await withWatchdog(10) { try await send(session, "GET", secret) } }
        XCTAssertEqual((error as? URLError)?.code, .cancelled)
        XCTAssertEqual(server.received, [])
    }

    func testBearerChallengeIsAPlain401() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/me") { _ in
            .status(401, headers: ["WWW-Authenticate": #"Bearer realm="api", error="invalid_token""#])
        }
        let reply = try await withWatchdog(10) { try await send(mocks.session, "GET", "https://api.example.com/me") }
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(
            reply.response.value(forHTTPHeaderField: "WWW-Authenticate"), #"Bearer realm="api", error="invalid_token""#)
    }

    func testRealmIsReadFromTheBasicChallengeAmongOthers() async throws {
        let mocks = MockRegistry()
        mocks.register("https://api.example.com/me") { _ in
            .status(
                401, headers: ["WWW-Authenticate": #"Bearer realm="api", Basic charset="UTF-8", realm="reports""#])
        }
        let delegate = Answering(.performDefaultHandling)
        let session = URLSession(configuration: mocks.configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let reply = try await withWatchdog(10) { try await send(session, "GET", "https://api.example.com/me") }
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(delegate.asked.current, [0])
        #if canImport(FoundationNetworking)
            // Documented difference: Linux's Foundation would take over any Basic 401 it is handed.
            XCTAssertNil(reply.response.value(forHTTPHeaderField: "WWW-Authenticate"))
        #endif
    }

    func testBasic401FromASequenceWithoutADelegateReachesTheClient() async throws {
        // Answered inside `startLoading` (no user code), so the challenge is settled there too.
        let mocks = MockRegistry()
        let challenge = MockResponse.text(
            "who are you?", status: 401, headers: ["WWW-Authenticate": #"Basic realm="reports""#])
        mocks.register(.url("https://api.example.com/secret"), sequence: [challenge])
        let reply = try await withWatchdog(10) {
            try await send(mocks.session, "GET", "https://api.example.com/secret")
        }
        XCTAssertEqual(reply.status, 401)
        XCTAssertEqual(reply.text, "who are you?")
    }
}
