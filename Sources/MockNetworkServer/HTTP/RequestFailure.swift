/// Why a request cannot be answered: the status the server answers with before it closes the
/// connection, and a line saying what was wrong (the answer's body).
package struct RequestFailure: Error, Equatable, Sendable {
    /// The status: 400, 408, 413, 414, 417, 431, 501 or 505.
    package var status: Int
    /// What was wrong, in a few words.
    package var reason: String

    /// A failure with the given status and reason.
    package init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    static func malformed(_ reason: String) -> RequestFailure { RequestFailure(status: 400, reason: reason) }
}
