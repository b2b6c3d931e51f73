import Foundation

/// `MockNetworkError` as an `NSError`, so that it keeps its identity on every platform.
///
/// On Apple platforms URLSession hands the caller an `NSError` rebuilt from the error a protocol
/// failed with, and `error as? MockNetworkError` on what `data(for:)` threw finds nothing. The domain,
/// the code and the user info survive that trip, and ``MockNetworkError/init(_:)`` reads them back.
extension MockNetworkError: CustomNSError {
    /// The domain of every `MockNetworkError` bridged to `NSError`.
    public static let errorDomain = "MockNetwork.MockNetworkError"

    /// One code per case, stable across releases. Codes 7, 8, 9, 12 and 13 were the cases of stubs and
    /// archives, whose errors are their products' now (`MockLaunchError`, `ArchiveError`); they are not reused.
    public var errorCode: Int {
        switch self {
        case .invalidStatusCode: 1
        case .responseURLMismatch: 2
        case .invalidRedirectStatus: 3
        case .missingFixture: 4
        case .sequenceExhausted: 5
        case .downloadUnsupported: 6
        case .uploadBodyUnreachable: 10
        case .unencodableJSON: 11
        case .invalidStream: 14
        case .requestNotSeen: 15
        case .undecodableBody: 16
        }
    }

    /// The message (`NSLocalizedDescriptionKey`, and `NSLocalizedFailureReasonErrorKey`, which an
    /// `NSError`'s description quotes on Linux), and the case's values, from which
    /// ``MockNetworkError/init(_:)`` rebuilds it.
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: description, NSLocalizedFailureReasonErrorKey: description, Self.valuesKey: values]
    }

    /// The key of the case's values in ``errorUserInfo``.
    static let valuesKey = "MockNetworkErrorValues"

    private var values: [String] {
        switch self {
        case .invalidStatusCode(let status), .invalidRedirectStatus(let status): [String(status)]
        case .responseURLMismatch(let request, let response): [request, response]
        case .missingFixture(let name, let bundle): [name, bundle]
        case .sequenceExhausted(let request, let count): [request, String(count)]
        case .downloadUnsupported(let url): [url]
        case .uploadBodyUnreachable(let url, let bytes): [url, String(bytes)]
        case .unencodableJSON(let type, let reason): [type, reason]
        case .invalidStream(let reason), .requestNotSeen(let reason), .undecodableBody(let reason): [reason]
        }
    }

    /// The `MockNetworkError` in what URLSession (or anything else) threw, on every platform:
    /// the error itself, or the `NSError` Apple's URLSession rebuilds from it. `nil` for other errors.
    ///
    /// ```swift
    /// let error = await #expect(throws: (any Error).self) { try await session.data(from: url) }
    /// #expect(MockNetworkError(error!) == .sequenceExhausted(request: "GET …", count: 2))
    /// ```
    public init?(_ error: any Error) {
        if let error = error as? MockNetworkError {
            self = error
            return
        }
        let error = error as NSError
        guard error.domain == Self.errorDomain, let values = error.userInfo[Self.valuesKey] as? [String] else {
            return nil
        }
        func value(_ index: Int) -> String? { index < values.count ? values[index] : nil }
        func number(_ index: Int) -> Int? { value(index).flatMap { Int($0) } }
        let rebuilt: MockNetworkError?
        switch error.code {
        case 1: rebuilt = number(0).map { .invalidStatusCode($0) }
        case 2: rebuilt = value(1).map { .responseURLMismatch(request: values[0], response: $0) }
        case 3: rebuilt = number(0).map { .invalidRedirectStatus($0) }
        case 4: rebuilt = value(1).map { .missingFixture(name: values[0], bundle: $0) }
        case 5: rebuilt = number(1).map { .sequenceExhausted(request: values[0], count: $0) }
        case 6: rebuilt = value(0).map { .downloadUnsupported($0) }
        case 10: rebuilt = number(1).map { .uploadBodyUnreachable(values[0], bytes: $0) }
        case 11: rebuilt = value(1).map { .unencodableJSON(type: values[0], reason: $0) }
        case 14: rebuilt = value(0).map { .invalidStream($0) }
        case 15: rebuilt = value(0).map { .requestNotSeen($0) }
        case 16: rebuilt = value(0).map { .undecodableBody($0) }
        default: rebuilt = nil
        }
        guard let rebuilt else { return nil }
        self = rebuilt
    }
}
