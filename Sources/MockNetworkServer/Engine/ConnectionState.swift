import Dispatch
import Foundation

/// Everything about one connection that changes: bytes in and out, requests read ahead, the answer
/// in progress, where the connection is in its life, and its Dispatch sources.
///
/// It lives in the connection's `Locked` box: changed on the connection's serial queue, and by the
/// one thread at a time that applies a writer's calls (a handler's thread, once per answer).
struct ConnectionState {
    /// A request read ahead of the answer in progress, or the failure that ends the connection.
    enum Pending {
        case request(HTTPServerRequest)
        case failure(RequestFailure)
    }

    enum Phase: Equatable {
        /// Reading requests and answering them.
        case open
        /// Sending what is left, then closing (a failure, `Connection: close`, an HTTP/1.0 answer).
        case closingAfterFlush
        /// All sent and the sending side shut: reading and dropping what the client still sends,
        /// until it closes too or the deadline passes. Also a stopping server's grace for the client
        /// of an answer in progress to hang up (``Connection/shutDown(grace:)``), with nothing shut.
        case lingering(deadline: UInt64)
        /// Switched to another protocol (`101 Switching Protocols`): the bytes each way are that
        /// protocol's (``ConnectionUpgrade``), until it closes the connection.
        case upgraded
        /// Closed: the sources are cancelled, the descriptor closed or about to be.
        case closed
    }

    /// The answer in progress.
    struct Answer {
        enum Body {
            case notStarted
            case streaming(framing: ResponseEncoding.Framing, sendsBody: Bool, remaining: Int)
        }

        let serial: Int
        let method: String
        let version: HTTPVersion
        /// Whether the request let the connection stay open after its answer.
        let keepsOpen: Bool
        var body = Body.notStarted
        /// What to run if the connection closes before the answer ends.
        var onClose: (@Sendable () -> Void)?
    }

    var parser: RequestParser
    var inbound = ByteQueue()
    var outbound = ByteQueue()
    var pending: [Pending] = []
    var pendingBodyBytes = 0
    /// A head asked for `100 Continue` and it has not been sent yet; its body is not read meanwhile.
    var awaitingContinue = false
    /// A request asked to switch protocols (`Upgrade`) and its answer has not ended: nothing after
    /// it is parsed as HTTP meanwhile, since it may be the new protocol's.
    var upgradeAsked = false
    /// The protocol the connection switched to, in phase `upgraded`.
    var upgrade: (any ConnectionUpgrade)?
    /// The upgraded protocol takes no more bytes for now (its reader is behind).
    var upgradeReadPaused = false
    /// What runs once the bytes waiting to be sent fall to ``HTTPServerLimits/outboundLowWater``.
    var drainWaiters: [@Sendable () -> Void] = []
    /// No more requests will be read: after a failure, a close, or the client's end of stream.
    var parsingEnded = false
    var answer: Answer?
    var nextSerial = 0
    /// The answer that was in progress when the connection closed.
    var answerCutShort: Int?
    /// The client shut its sending side (an end of stream was read).
    var peerFinished = false
    /// The server stops: no request is taken any more, and an answer in progress goes no further.
    var stopping = false
    /// The server closed the connection while an answer was in progress and its client was there:
    /// the server's stop cut the answer short (not its client's leaving).
    var cutByServer = false
    var phase = Phase.open
    /// When the client last made progress (an uptime in nanoseconds): bytes it took, bytes it sent
    /// (of a head or a body), an answer that ended.
    var lastProgress: UInt64

    var readSource: (any DispatchSourceRead)?
    var readSuspended = false
    var writeSource: (any DispatchSourceWrite)?
    var writeSuspended = false
    var timer: (any DispatchSourceTimer)?
    /// Sources on the descriptor not yet through their cancel handlers; it is closed after the last.
    var sourcesOnDescriptor = 0
    var descriptorOpen = true

    init(parser: RequestParser, now: UInt64) {
        self.parser = parser
        lastProgress = now
    }

    /// The most bytes of bodies read ahead of the answer in progress before reading pauses.
    static let readAheadBodyBytes = 1 << 20

    /// Whether the connection should read from its socket now.
    func wantsToRead(_ limits: HTTPServerLimits) -> Bool {
        switch phase {
        case .open:
            !peerFinished && !parsingEnded && !awaitingContinue && !upgradeAsked
                && pending.count < limits.maxPipelinedRequests && pendingBodyBytes < Self.readAheadBodyBytes
        case .upgraded: !peerFinished && !upgradeReadPaused
        case .lingering: !peerFinished
        case .closingAfterFlush, .closed: false
        }
    }

    /// Whether the connection waits on its client, so that time without progress counts: for a
    /// request when nothing is being answered, or for the client to take what is sent.
    var waitsOnClient: Bool {
        switch phase {
        case .open: !outbound.isEmpty || (answer == nil && pending.isEmpty)
        case .closingAfterFlush, .upgraded: !outbound.isEmpty
        case .lingering, .closed: false
        }
    }

    static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}
