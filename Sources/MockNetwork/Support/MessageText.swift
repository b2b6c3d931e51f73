import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension RecordedRequest {
    /// The method a request is sent with: `GET` when it has none, or an empty one (as Foundation does).
    package static func method(of request: URLRequest) -> String {
        guard let method = request.httpMethod, !method.isEmpty else { return "GET" }
        return method
    }
}

extension MockRegistry {
    /// The longest text a message shows of one URL or body; longer ones keep their start and end.
    package static let messageTextLimit = 300

    /// `text`, cut in the middle when it is longer than ``messageTextLimit``, saying how much was left out.
    package static func shortened(_ text: String, limit: Int = messageTextLimit) -> String {
        guard text.utf8.count > limit else { return text }
        let head = text.prefix(limit * 2 / 3)
        let tail = text.suffix(limit / 5)
        let left = text.count - head.count - tail.count
        return "\(head)…(\(left) more characters)…\(tail)"
    }
}
