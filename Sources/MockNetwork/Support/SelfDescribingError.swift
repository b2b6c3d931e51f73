import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The error a client gets, made to say MockNetwork's message where its description shows one.
///
/// On Linux an `NSError`'s description quotes its `NSLocalizedFailureReasonErrorKey`, not its
/// message: a client's failure read `Error Domain=NSURLErrorDomain Code=-1008 "(null)"` before the
/// message, and XCTest prints just that for a thrown error. A `URLError` of MockNetwork's (its
/// message starts "MockNetwork:") gets its message as its failure reason too, so the description
/// starts with it on every platform; other errors are left as they are.
enum SelfDescribingError {
    static func describing(_ error: any Error) -> any Error {
        guard let error = error as? URLError, error.userInfo[NSLocalizedFailureReasonErrorKey] == nil,
            let message = error.userInfo[NSLocalizedDescriptionKey] as? String, message.hasPrefix("MockNetwork:")
        else { return error }
        var userInfo = error.userInfo
        userInfo[NSLocalizedFailureReasonErrorKey] = message
        return URLError(error.code, userInfo: userInfo)
    }
}
