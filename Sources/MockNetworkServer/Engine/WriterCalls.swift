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
        case switchProtocols(head: [UInt8], upgrade: any ConnectionUpgrade)
    }

    /// The answer it is for.
    let serial: Int
    let kind: Kind
}

/// Writer calls not yet applied, in the order they were made, and who applies them.
///
/// The thread that makes a call applies it itself, under the connection's lock, and sends what it
/// wrote: a handler's thread that gives a head, a body and the end sends them with no hop to the
/// connection's queue. One thread applies at a time (the drainer): a call made meanwhile waits here
/// for it, so calls take effect in the order they were made. Calls made while the connection's queue
/// is in the responder's `respond` wait for the queue to apply them as the responder returns.
struct WriterMailbox {
    private var calls: [WriterCall] = []
    /// A thread is applying calls and takes those that arrive until none is left.
    private var draining = false
    /// The connection's queue is in the responder's `respond`, and applies the calls when it returns.
    private var answeringInline = false

    /// Adds `call`; true when the caller becomes the drainer and must apply the calls.
    mutating func post(_ call: WriterCall) -> Bool {
        calls.append(call)
        guard !draining, !answeringInline else { return false }
        draining = true
        return true
    }

    /// The calls waiting, for the drainer; when none wait, it stops being the drainer.
    mutating func takeOrStop() -> [WriterCall] {
        guard !calls.isEmpty else {
            draining = false
            return []
        }
        defer { calls = [] }
        return calls
    }

    /// From here until `endInline`, calls wait for the connection's queue to apply them itself.
    mutating func beginInline() {
        answeringInline = true
    }

    /// The responder returned: true when the queue becomes the drainer for the calls it made.
    mutating func endInline() -> Bool {
        answeringInline = false
        guard !draining, !calls.isEmpty else { return false }
        draining = true
        return true
    }
}
