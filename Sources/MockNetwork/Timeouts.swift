import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The timeout MockNetwork enforces for a request, the same way on every platform (Foundation
/// enforces none for a custom protocol on Linux, and not `timeoutIntervalForRequest` on Apple's).
enum Timeouts {
    /// The request's `timeoutInterval` when it was changed from the default, else the
    /// configuration's `timeoutIntervalForRequest`; never longer than its
    /// `timeoutIntervalForResource`. `.infinity` when there is none.
    ///
    /// `configuration` is the one the registry made for the session's protocol class: Foundation
    /// copies neither session timeout into the request a protocol sees.
    static func timeout(of request: URLRequest, configuration: URLSessionConfiguration?) -> TimeInterval {
        var timeout = request.timeoutInterval
        if let configuration {
            if request.timeoutInterval == defaultRequestTimeout, configuration.timeoutIntervalForRequest > 0 {
                timeout = configuration.timeoutIntervalForRequest
            }
            if configuration.timeoutIntervalForResource > 0 {
                timeout =
                    timeout > 0
                    ? min(timeout, configuration.timeoutIntervalForResource)
                    : configuration.timeoutIntervalForResource
            }
        }
        return timeout > 0 ? timeout : .infinity
    }

    /// `URLRequest`'s own default `timeoutInterval`.
    static let defaultRequestTimeout: TimeInterval = 60
}
