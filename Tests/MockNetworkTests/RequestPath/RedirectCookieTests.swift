import Foundation
import MockNetwork
import XCTest

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A cookie a redirect response sets reaches the redirect's target, as Foundation's own loading
/// sends it: the next request's `Cookie` field comes from the storage after the redirect response
/// was kept, not from the first request's field. Checked beside a loopback server.
final class RedirectCookieTests: XCTestCase {
    /// A session with a cookie storage of its own, holding `sid=abc` for `url`'s host already.
    private static func session(from configuration: URLSessionConfiguration, storing url: URL) throws -> URLSession {
        let copy = configuration.copy() as! URLSessionConfiguration
        copy.httpCookieStorage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: UUID().uuidString)
        copy.httpShouldSetCookies = true
        copy.httpCookieAcceptPolicy = .always
        let cookie = try XCTUnwrap(
            HTTPCookie(properties: [.name: "sid", .value: "abc", .domain: url.host ?? "", .path: "/"]))
        copy.httpCookieStorage?.setCookie(cookie)
        return URLSession(configuration: copy)
    }

    private static let redirectFields = [("Location", "/home"), ("Set-Cookie", "sid=new; Path=/")]

    func testTheRedirectsCookieReachesItsTargetAsOnARealServer() async throws {
        // The real server first: what Foundation's own loading sends.
        let server = try LoopbackServer(routes: [
            "GET /login": .init(status: 302, headers: Self.redirectFields, text: ""),
            "GET /home": .init(status: 200, text: "home"),
        ])
        defer { server.stop() }
        let login = try XCTUnwrap(server.url("/login"))
        let real = try Self.session(from: .ephemeral, storing: login)
        _ = try await real.data(from: login)
        let realCookie = server.received.first { $0.target == "/home" }?.header("Cookie")
        XCTAssertEqual(realCookie, "sid=new")

        // The same through a registry.
        let mocks = MockRegistry()
        let seen = Shared<[String]>([])
        mocks.register("https://api.example.com/login") { request in
            seen.update { $0.append("login: " + (request.value(forHTTPHeaderField: "Cookie") ?? "none")) }
            return .text("", status: 302, headers: ["Location": "/home", "Set-Cookie": "sid=new; Path=/"])
        }
        mocks.register("https://api.example.com/home") { request in
            seen.update { $0.append("home: " + (request.value(forHTTPHeaderField: "Cookie") ?? "none")) }
            return .text("home")
        }
        let mocked = try Self.session(from: mocks.configuration, storing: try url("https://api.example.com/login"))
        let (data, _) = try await mocked.data(from: try url("https://api.example.com/login"))
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "home")
        XCTAssertEqual(seen.current, ["login: sid=abc", "home: " + (realCookie ?? "?")])
    }

    /// A request that carries a `Cookie` field of the client's own: each hop gets what Foundation's
    /// own loading sends.
    func testACookieTheClientSetItselfIsSentAsOnARealServer() async throws {
        let server = try LoopbackServer(routes: [
            "GET /login": .init(status: 302, headers: Self.redirectFields, text: ""),
            "GET /home": .init(status: 200, text: "home"),
        ])
        defer { server.stop() }
        let login = try XCTUnwrap(server.url("/login"))
        var request = URLRequest(url: login)
        request.setValue("mine=1", forHTTPHeaderField: "Cookie")
        _ = try await Self.session(from: .ephemeral, storing: login).data(for: request)
        let real = ["/login", "/home"].map { target in
            server.received.first { $0.target == target }?.header("Cookie") ?? "none"
        }

        let mocks = MockRegistry()
        let seen = Shared<[String]>([])
        mocks.register("https://api.example.com/login") { request in
            seen.update { $0.append(request.value(forHTTPHeaderField: "Cookie") ?? "none") }
            return .text("", status: 302, headers: ["Location": "/home", "Set-Cookie": "sid=new; Path=/"])
        }
        mocks.register("https://api.example.com/home") { request in
            seen.update { $0.append(request.value(forHTTPHeaderField: "Cookie") ?? "none") }
            return .text("home")
        }
        request.url = try url("https://api.example.com/login")
        _ = try await Self.session(from: mocks.configuration, storing: try url("https://api.example.com/login"))
            .data(for: request)
        XCTAssertEqual(seen.current, real)
    }
}
