import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a chain of followed redirects stands: how many hops it has made and the URL it started at,
/// so that the redirect limit and its message hold for the whole chain.
///
/// On Linux a chain is followed inside one protocol instance (`DelegateCalls.swift`), so it never
/// leaves ``MockRegistry/Chain``. On Apple platforms the protocol hands each redirect to Foundation
/// (`wasRedirectedTo`), which loads the new request in a new protocol instance: the trail travels
/// with that request as protocol properties, invisible to handlers and delegates, and the new
/// instance's chain starts where the old one stopped.
struct RedirectTrail: Sendable, Equatable {
    var hops: Int
    var firstURL: URL?

    #if !canImport(FoundationNetworking)
        private static let hopsKey = "MockNetwork.redirectHops"
        private static let firstURLKey = "MockNetwork.redirectFirstURL"

        /// The trail a redirected request carries, or `nil` for a request that is no redirect's.
        init?(of request: URLRequest) {
            guard let hops = URLProtocol.property(forKey: Self.hopsKey, in: request) as? Int else { return nil }
            self.hops = hops
            self.firstURL = (URLProtocol.property(forKey: Self.firstURLKey, in: request) as? String)
                .flatMap { URL(string: $0) }
        }

        /// `request` carrying this trail. (Corelibs Foundation drops protocol properties when an
        /// `NSURLRequest` becomes a `URLRequest`, so this is only for Apple platforms, where it keeps them.)
        func attached(to request: URLRequest) -> URLRequest {
            guard let mutable = (request as NSURLRequest).mutableCopy() as? NSMutableURLRequest else { return request }
            URLProtocol.setProperty(hops, forKey: Self.hopsKey, in: mutable)
            if let firstURL { URLProtocol.setProperty(firstURL.absoluteString, forKey: Self.firstURLKey, in: mutable) }
            return mutable as URLRequest
        }
    #endif
}
