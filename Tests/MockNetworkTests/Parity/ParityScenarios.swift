import Foundation
import MockNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The scenarios of the parity suite: client code as apps write it, with the routes both sides answer.

typealias Route = LoopbackServer.Response

private let json = [("Content-Type", "application/json")]

/// Fields pinned as differing on Linux, for the reason `LinuxDifferences` gives; none elsewhere.
private func onLinux(_ fields: [String]) -> [String] {
    #if canImport(FoundationNetworking)
        return fields
    #else
        return []
    #endif
}
private let text = [("Content-Type", "text/plain; charset=utf-8")]

enum ParityScenarios {
    static var all: [ParityScenario] {
        methods + statuses + bodies + styles + uploads + headers + cookies + redirects + waits
    }

    // MARK: Methods

    static let methods: [ParityScenario] = [
        ParityScenario(name: "GET JSON", routes: ["GET /user": Route(headers: json, text: #"{"name":"ada"}"#)]) {
            await $0.data($0.request("GET", "/user"))
        },
        ParityScenario(
            name: "POST JSON", routes: ["POST /users": Route(status: 201, headers: json, text: #"{"id":7}"#)]
        ) {
            await $0.data(
                $0.request(
                    "POST", "/users", headers: ["Content-Type": "application/json"], body: Data(#"{"name":"ada"}"#.utf8)
                ))
        },
        ParityScenario(name: "PUT", routes: ["PUT /users/7": Route(headers: json, text: #"{"id":7}"#)]) {
            await $0.data($0.request("PUT", "/users/7", body: Data("name=ada".utf8)))
        },
        ParityScenario(name: "PATCH", routes: ["PATCH /users/7": Route(headers: json, text: "{}")]) {
            await $0.data($0.request("PATCH", "/users/7", body: Data(#"{"age":36}"#.utf8)))
        },
        ParityScenario(name: "DELETE 204", routes: ["DELETE /users/7": Route(status: 204)]) {
            await $0.data($0.request("DELETE", "/users/7"))
        },
        ParityScenario(name: "HEAD", routes: ["HEAD /file": Route(headers: text, text: "twelve bytes")]) {
            await $0.data($0.request("HEAD", "/file"))
        },
        ParityScenario(name: "query string", routes: ["GET /search?q=dogs&page=2": Route(headers: json, text: "[]")]) {
            await $0.data($0.request("GET", "/search?q=dogs&page=2"))
        },
    ]

    // MARK: Statuses

    static let statuses: [ParityScenario] = [
        ParityScenario(name: "304 with ETag", routes: ["GET /feed": Route(status: 304, headers: [("ETag", "\"v1\"")])])
        {
            await $0.data($0.request("GET", "/feed", headers: ["If-None-Match": "\"v1\""]))
        },
        ParityScenario(name: "404 text", routes: ["GET /missing": Route(status: 404, headers: text, text: "not here")])
        {
            await $0.data($0.request("GET", "/missing"))
        },
        ParityScenario(name: "500 JSON", routes: ["GET /boom": Route(status: 500, headers: json, text: #"{"e":1}"#)]) {
            await $0.data($0.request("GET", "/boom"))
        },
        ParityScenario(
            name: "429 Retry-After", routes: ["GET /busy": Route(status: 429, headers: [("Retry-After", "3")])]
        ) {
            await $0.data($0.request("GET", "/busy"))
        },
    ]

    // MARK: Bodies

    static let bodies: [ParityScenario] = [
        ParityScenario(name: "empty 200", routes: ["GET /empty": Route()]) {
            await $0.data($0.request("GET", "/empty"))
        },
        ParityScenario(
            name: "non-UTF-8 body",
            routes: [
                "GET /bytes": Route(
                    headers: [("Content-Type", "application/octet-stream")], body: Data([0xFF, 0xFE, 0, 0x80, 0xC3]))
            ]
        ) {
            await $0.data($0.request("GET", "/bytes"))
        },
        ParityScenario(
            name: "large body (1 MB)",
            routes: [
                "GET /large": Route(
                    headers: [("Content-Type", "application/octet-stream")],
                    body: Data((0..<1_048_576).map { UInt8($0 % 251) }))
            ]
        ) {
            await $0.data($0.request("GET", "/large"))
        },
    ]

    // MARK: Client styles

    static let styles: [ParityScenario] = [
        ParityScenario(name: "completion handler", routes: ["GET /user": Route(headers: json, text: "{}")]) {
            await $0.completion($0.request("GET", "/user"))
        },
        ParityScenario(name: "data delegate", routes: ["GET /user": Route(headers: json, text: #"{"a":1}"#)]) {
            await $0.delegate($0.request("GET", "/user"))
        },
        ParityScenario(
            name: "data delegate answers .cancel", routes: ["GET /user": Route(headers: json, text: #"{"a":1}"#)],
            disposition: .cancel
        ) {
            await $0.delegate($0.request("GET", "/user"))
        },
        ParityScenario(
            name: "delegate, completion handler and 404", routes: ["GET /gone": Route(status: 404, text: "gone")]
        ) {
            await $0.completion($0.request("GET", "/gone"))
        },
    ]

    // MARK: Uploads

    static let uploads: [ParityScenario] = [
        ParityScenario(name: "upload from data", routes: ["POST /upload": Route(status: 201, text: "stored")]) {
            await $0.upload($0.request("POST", "/upload"), from: Data("photo bytes".utf8))
        },
        ParityScenario(name: "upload from file", routes: ["PUT /upload": Route(text: "stored")]) {
            await $0.upload($0.request("PUT", "/upload"), fromFileWith: Data(repeating: 7, count: 4096))
        },
        ParityScenario(name: "httpBody, delegate (progress)", routes: ["POST /upload": Route(text: "ok")]) {
            await $0.delegate($0.request("POST", "/upload", body: Data(repeating: 1, count: 2048)))
        },
        ParityScenario(
            name: "httpBodyStream", routes: ["POST /stream": Route(text: "ok")]
            // Linux's Foundation sends a stream with both `Transfer-Encoding: chunked` and the
            // `Content-Length` the client set; MockServer reads the chunks, as the loopback server
            // does, and closes the connection after the answer (RFC 9112, 6.3).
        ) { client in
            var request = client.request("POST", "/stream", headers: ["Content-Length": "5"])
            request.httpBodyStream = InputStream(data: Data("hello".utf8))
            return await client.data(request)
        },
    ]

    // MARK: Headers

    static let headers: [ParityScenario] = [
        ParityScenario(
            name: "request headers", routes: ["GET /me": Route(headers: json, text: "{}")]
        ) {
            await $0.data($0.request("GET", "/me", headers: ["Authorization": "Bearer t", "X-Trace": "1"]))
        },
        ParityScenario(
            name: "session httpAdditionalHeaders", routes: ["GET /me": Route(headers: json, text: "{}")],
            configure: {
                $0.httpAdditionalHeaders = [
                    "Authorization": "Bearer session", "User-Agent": "App/1.0", "Accept-Language": "de",
                    "Accept": "application/json",
                ]
            }
        ) {
            await $0.data($0.request("GET", "/me"))
        },
        ParityScenario(
            name: "request header wins over the session's", routes: ["GET /me": Route(headers: json, text: "{}")],
            configure: { $0.httpAdditionalHeaders = ["Authorization": "Bearer session", "X-Client": "app"] }
        ) {
            await $0.data($0.request("GET", "/me", headers: ["Authorization": "Bearer request"]))
        },
        ParityScenario(
            name: "response headers",
            routes: ["GET /h": Route(headers: [("X-Rate", "10"), ("Cache-Control", "no-store")], text: "h")]
        ) {
            await $0.data($0.request("GET", "/h"))
        },
    ]

    // MARK: Cookies

    static let cookies: [ParityScenario] = [
        ParityScenario(
            name: "Set-Cookie, then Cookie",
            routes: [
                "POST /login": Route(headers: [("Set-Cookie", "session=abc; Path=/")], text: "in"),
                "GET /me": Route(headers: json, text: "{}"),
            ],
            configure: { configuration in
                configuration.httpCookieStorage = HTTPCookieStorage.sharedCookieStorage(
                    forGroupContainerIdentifier: UUID().uuidString)
                configuration.httpCookieAcceptPolicy = .always
                configuration.httpShouldSetCookies = true
            }
        ) { client in
            _ = await client.data(client.request("POST", "/login"))
            return await client.data(client.request("GET", "/me"))
        }
    ]

    // MARK: Redirects

    static let redirects: [ParityScenario] = {
        func keepsMethod(_ status: Int, _ method: String) -> Bool {
            method != "GET" && (status >= 307 || method == "PUT" && status != 303)
        }
        var out: [ParityScenario] = []
        for status in [301, 302, 303, 307, 308] {
            for method in ["GET", "POST", "PUT"] {
                out.append(
                    ParityScenario(
                        name: "\(status) for \(method)",
                        routes: [
                            "\(method) /old": Route(status: status, headers: [("Location", "/new")]),
                            "GET /new": Route(headers: text, text: "new by GET"),
                        ].merging(["\(method) /new": Route(headers: text, text: "new by \(method)")]) { first, _ in
                            first
                        },
                        // Linux's Foundation drops the body when a redirect keeps the method; RFC 9110
                        // and Apple's keep it, and so does MockNetwork.
                        pinned: keepsMethod(status, method) ? onLinux(["received"]) : []
                    ) {
                        await $0.data(
                            $0.request(
                                method, "/old", headers: method == "GET" ? [:] : ["Content-Type": "text/plain"],
                                body: method == "GET" ? nil : Data("payload".utf8)))
                    })
            }
        }
        out.append(
            ParityScenario(
                name: "relative Location",
                routes: [
                    "GET /a/b/old": Route(status: 302, headers: [("Location", "new?x=1")]),
                    "GET /a/b/new?x=1": Route(text: "moved"),
                ],
                // Linux's Foundation resolves a relative Location against the root (GET /new?x=1), a 404;
                // MockNetwork resolves it against the request's URL (RFC 3986), as Apple's does.
                pinned: onLinux([
                    "status", "headers", "body", "expectedContentLength", "responseURL", "events", "received",
                ]),
                // Served, the 404 for the URL Linux's Foundation makes is MockNetwork's report.
                servedPinned: onLinux(["headers", "body", "expectedContentLength"])
            ) {
                await $0.data($0.request("GET", "/a/b/old"))
            })
        out.append(
            ParityScenario(
                name: "relative Location with ../",
                routes: [
                    "GET /a/b/old": Route(status: 302, headers: [("Location", "../c/new?x=1")]),
                    "GET /a/c/new?x=1": Route(text: "moved"),
                ],
                // Linux's Foundation resolves "../" against the root (GET /../c/new), a 404; MockNetwork
                // resolves it per RFC 3986 as Apple's does. Its currentRequest is pinned below.
                pinned: onLinux([
                    "status", "headers", "body", "expectedContentLength", "responseURL", "currentRequest", "events",
                    "received",
                ]),
                servedPinned: onLinux(["headers", "body", "expectedContentLength"])
            ) {
                await $0.completion($0.request("GET", "/a/b/old"))
            })
        out.append(
            ParityScenario(
                name: "delegate refuses the redirect",
                routes: [
                    "GET /old": Route(status: 302, headers: [("Location", "/new")], text: "see /new"),
                    "GET /new": Route(text: "new"),
                ],
                followsRedirects: false,
                // Linux's Foundation drops the redirect's body; Apple's delivers it, as MockNetwork does.
                pinned: onLinux(["body"])
            ) {
                await $0.completion($0.request("GET", "/old"))
            })
        out.append(
            ParityScenario(
                name: "redirect chain and currentRequest",
                routes: [
                    "GET /one": Route(status: 301, headers: [("Location", "/two")]),
                    "GET /two": Route(status: 302, headers: [("Location", "/three")]),
                    "GET /three": Route(text: "three"),
                ],
                // On Linux only Foundation may set `currentRequest` (internal(set)): it stays the first.
                pinned: onLinux(["currentRequest"])
            ) {
                await $0.completion($0.request("GET", "/one"))
            })
        return out
    }()

    // MARK: Timeouts and cancellation

    // Margins of seconds between a delay and the timeout or cancel that ends it: a busy machine's
    // clients and servers are late by hundreds of milliseconds.
    static let waits: [ParityScenario] = [
        ParityScenario(name: "timeout", routes: ["GET /slow": Route(text: "late", delay: 4)]) {
            await $0.data($0.request("GET", "/slow", timeout: 1.5))
        },
        ParityScenario(name: "answered within the timeout", routes: ["GET /slowish": Route(text: "ok", delay: 0.2)]) {
            await $0.data($0.request("GET", "/slowish", timeout: 5))
        },
        ParityScenario(name: "cancel while waiting", routes: ["GET /slow": Route(text: "late", delay: 3)]) {
            await $0.delegate($0.request("GET", "/slow"), cancelAfter: 0.2)
        },
        ParityScenario(
            name: "redirect hops with delays",
            routes: [
                "GET /hop1": Route(status: 302, headers: [("Location", "/hop2")], delay: 0.1),
                "GET /hop2": Route(text: "arrived", delay: 0.3),
            ]
        ) {
            await $0.data($0.request("GET", "/hop1", timeout: 3))
        },
    ]
}
