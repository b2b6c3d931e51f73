import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a session does around every exchange with a server, which Foundation on Linux does only in
/// its own HTTP protocol: the configuration's extra headers, a POST body's default type, and cookies.
/// MockNetwork does them for its requests, from the configuration of the session that made the task
/// (a copy a client changed included), the same way on every platform (each step leaves alone what
/// is already there).
enum SessionBehaviours {
    /// `request` as a server would receive it from a session with `configuration`.
    static func prepared(_ request: URLRequest, configuration: URLSessionConfiguration?) -> URLRequest {
        var request = request
        if let extra = configuration?.httpAdditionalHeaders {
            // The request's own value wins over the session's.
            for (key, value) in extra {
                guard let name = key.base as? String, request.value(forHTTPHeaderField: name) == nil else { continue }
                request.setValue("\(value)", forHTTPHeaderField: name)
            }
        }
        // Foundation's default for a POST whose body is the request's own (not an upload task's).
        if request.httpMethod == "POST", request.httpBody != nil || request.httpBodyStream != nil,
            request.value(forHTTPHeaderField: "Content-Type") == nil
        {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        return withCookies(request, configuration: configuration)
    }

    /// `request` with the `Cookie` header its URL gets from the configuration's cookie storage.
    static func withCookies(_ request: URLRequest, configuration: URLSessionConfiguration?) -> URLRequest {
        guard let configuration, let storage = configuration.httpCookieStorage, configuration.httpShouldSetCookies,
            request.httpShouldHandleCookies, let url = request.url,
            request.value(forHTTPHeaderField: "Cookie") == nil,
            let cookies = storage.cookies(for: url), !cookies.isEmpty
        else { return request }
        var request = request
        for (name, value) in HTTPCookie.requestHeaderFields(with: cookies) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// The request a redirect leads to, with the `Cookie` field the session's storage gives its URL
    /// now (after the redirect response's own cookies were kept), in place of the one the earlier
    /// request carried: Foundation's own loading does so on Linux (measured beside a loopback
    /// server, a field the client set itself included), and MockNetwork does the same on every
    /// platform. Unchanged when the session does not set cookies.
    static func withCookiesAfterRedirect(_ request: URLRequest, configuration: URLSessionConfiguration?)
        -> URLRequest
    {
        guard let configuration, configuration.httpCookieStorage != nil, configuration.httpShouldSetCookies,
            request.httpShouldHandleCookies
        else { return request }
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Cookie")
        return withCookies(request, configuration: configuration)
    }

    /// Keeps the cookies `response` sets, when the configuration has a storage that accepts them.
    static func storeCookies(of response: HTTPURLResponse, configuration: URLSessionConfiguration?) {
        guard let configuration, let storage = configuration.httpCookieStorage,
            configuration.httpCookieAcceptPolicy != .never, let url = response.url
        else { return }
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        guard fields.keys.contains(where: { $0.caseInsensitiveCompare("Set-Cookie") == .orderedSame }) else { return }
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: fields, for: url)
        if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
    }
}
