import Foundation

/// What a responder asked of an `HTTPResponseWriter`, on its way to the connection's queue.
struct WriterCall {
    enum Kind {
        case respond(status: Int, headers: HTTPHeaders, body: Data)
        case begin(status: Int, headers: HTTPHeaders, length: Int?)
        case write(Data)
        case end
        case abort
        case onClose(@Sendable () -> Void)
    }

    /// The answer it is for.
    let serial: Int
    let kind: Kind
}

/// Writer calls not yet applied, in the order they were made.
///
/// Calls made one after another (a head, a body, the end, from a handler's thread) are applied
/// together by one task on the connection's queue and sent with one write, rather than a task and a
/// write each. Calls made while the connection hands a request to its responder, on its own queue,
/// are applied as soon as the responder returns, with no task at all.
struct WriterMailbox {
    private var calls: [WriterCall] = []
    /// A task to apply the calls is on the connection's queue, or about to be.
    private var scheduled = false
    /// The connection's queue is in the responder's `respond`, and applies the calls when it returns.
    private var answeringInline = false

    /// Adds `call`; true when the caller must schedule a task to apply the calls.
    mutating func post(_ call: WriterCall) -> Bool {
        calls.append(call)
        guard !scheduled, !answeringInline else { return false }
        scheduled = true
        return true
    }

    /// The calls waiting, taken by the task; when none wait, the task ends (`scheduled` is cleared).
    mutating func takeForTask() -> [WriterCall] {
        if calls.isEmpty { scheduled = false }
        return take()
    }

    /// From here until `endInline`, calls wait for the connection's queue to apply them itself.
    mutating func beginInline() {
        answeringInline = true
    }

    /// The calls made while the responder ran, for the connection's queue to apply now.
    mutating func endInline() -> [WriterCall] {
        answeringInline = false
        return take()
    }

    private mutating func take() -> [WriterCall] {
        guard !calls.isEmpty else { return [] }
        defer { calls = [] }
        return calls
    }
}
