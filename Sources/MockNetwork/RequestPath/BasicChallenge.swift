import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A mocked 401 whose `WWW-Authenticate` offers HTTP Basic with a realm, the challenge a real
/// server's exchange puts to the session delegate. MockNetwork puts it to the delegate itself, and
/// a credential the delegate gives makes the request go through the handlers again, with
/// `Authorization: Basic …`. (Linux's Foundation would take such a 401 over from any custom protocol
/// and then hang, or retry it through libcurl on the real network.)
struct BasicChallenge {
    let realm: String

    /// The Basic challenge of `response`, if it is a 401 that has one with a realm.
    init?(_ response: HTTPURLResponse) {
        guard response.statusCode == 401, let header = response.value(forHTTPHeaderField: "WWW-Authenticate"),
            let realm = Self.basicRealm(in: header)
        else { return nil }
        self.realm = realm
    }

    /// How often the delegate is asked for one request before the 401 goes to the client as it is.
    static let attemptLimit = 16

    /// The challenge for `response`'s URL, with `sender` told what the delegate decides.
    func challenge(
        for response: HTTPURLResponse, previousFailureCount: Int, sender: any URLAuthenticationChallengeSender
    ) -> URLAuthenticationChallenge {
        let url = response.url
        let scheme = url?.scheme ?? "https"
        let space = URLProtectionSpace(
            host: url?.host ?? "", port: url?.port ?? (scheme == "http" ? 80 : 443), protocol: scheme,
            realm: realm, authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: previousFailureCount,
            failureResponse: response, error: nil, sender: sender)
    }

    /// `Basic <base64 of user:password>`, or `nil` for a credential without a user and password.
    static func authorization(for credential: URLCredential) -> String? {
        guard let user = credential.user, let password = credential.password else { return nil }
        return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The realm of the first Basic challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1):
    /// challenges and their parameters are comma-separated; a new challenge starts with a scheme token.
    static func basicRealm(in header: String) -> String? {
        var inBasic = false
        for element in splitOutsideQuotes(header) {
            var item = Substring(element).drop(while: { $0 == " " || $0 == "\t" })
            if let space = item.firstIndex(where: { $0 == " " || $0 == "\t" }), !item[..<space].contains("=") {
                // "Scheme param=value": a new challenge.
                inBasic = item[..<space].lowercased() == "basic"
                item = item[space...].drop(while: { $0 == " " || $0 == "\t" })
            } else if !item.contains("=") {
                inBasic = item.lowercased() == "basic"
                continue
            }
            guard inBasic, let equals = item.firstIndex(of: "=") else { continue }
            let name = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            guard name == "realm" else { continue }
            var value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            return value
        }
        return nil
    }

    private static func splitOutsideQuotes(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                parts.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current)
        return parts
    }

    #if canImport(FoundationNetworking)
        /// `response` without its `WWW-Authenticate` header: the only way a Basic 401 reaches a client
        /// through a custom protocol on Linux, whose Foundation otherwise takes it over (see above).
        static func withoutChallenge(_ response: HTTPURLResponse) -> HTTPURLResponse {
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in response.allHeaderFields
            where name.lowercased() != "www-authenticate" {
                headers[name] = value
            }
            guard let url = response.url,
                let copy = HTTPURLResponse(
                    url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers)
            else { return response }
            return copy
        }
    #endif
}

/// Hears what the session delegate decided about a ``BasicChallenge`` (on Apple platforms the URL
/// loading system calls these; on Linux MockNetwork calls the delegate itself and then these).
final class ChallengeSender: NSObject, URLAuthenticationChallengeSender {
    /// Plain values, not the credential: `URLCredential` is `Sendable` in corelibs, and may not be in
    /// every Apple SDK this package builds with.
    enum Decision: Sendable {
        /// Send the request again with this `Authorization` value.
        case authorize(String)
        case without
        case cancel

        /// What using `credential` means: its Basic `Authorization`, or none without a user and password.
        static func use(_ credential: URLCredential) -> Decision {
            BasicChallenge.authorization(for: credential).map(Decision.authorize) ?? .without
        }
    }

    let decide: @Sendable (Decision) -> Void

    init(_ decide: @escaping @Sendable (Decision) -> Void) {
        self.decide = decide
    }

    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) { decide(.use(credential)) }
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) { decide(.without) }
    func cancel(_ challenge: URLAuthenticationChallenge) { decide(.cancel) }
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) { decide(.without) }
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) { decide(.without) }

    /// The decision a delegate's completion handler carries.
    static func decision(_ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?)
        -> Decision
    {
        switch disposition {
        case .useCredential:
            if let credential { return .use(credential) }
            return .without
        case .cancelAuthenticationChallenge:
            return .cancel
        default:
            return .without
        }
    }
}
