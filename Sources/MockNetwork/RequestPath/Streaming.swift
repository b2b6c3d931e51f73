import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A body that arrives over time (``BodyPacing``): where its delivery stands. Pieces are computed
/// as they come due, so the work and memory do not grow with the number of pieces.
struct BodyStream {
    let data: Data
    let schedule: BodyPacing.Schedule
    /// How many of the schedule's pieces come (the rest are cut by a timeout), or 1 when the body
    /// comes whole (`whole`).
    let count: Int
    /// The body comes in one piece, when its last piece is due.
    let whole: Bool
    /// When the response was delivered: each piece is due this long after it.
    let start: DispatchTime
    /// The error the body ends with instead of finishing, and when (seconds after the response).
    let failure: (at: Double, error: any Error)?
    var next = 0

    /// What to do next: a piece that is due, the end, or a wait until the next piece is due.
    enum Step {
        case piece(Data)
        case finish
        case fail(any Error)
        case wait(until: DispatchTime)
        case none
    }

    /// The stream of `data` as `pacing` says. A gap between pieces as long as `idleLimit` (the
    /// request's timeout) ends it with `URLError(.timedOut)` then, as a stalled connection does;
    /// so does `resourceLimit` (seconds from now to the end of the session's
    /// `timeoutIntervalForResource`), which bounds the whole body. With `everyPiece` false, the body
    /// comes in one piece when its last piece is due.
    init(
        _ data: Data, _ pacing: BodyPacing, idleLimit: TimeInterval, resourceLimit: (TimeInterval, any Error)?,
        everyPiece: Bool
    ) {
        let schedule = pacing.schedule(length: data.count)
        var count = schedule.count
        var failure = pacing.fault.map { (at: count > 0 ? schedule[count - 1].at : 0, error: $0.error) }
        if let late = schedule.firstGap(atLeast: idleLimit) {
            let lastAt = late == 0 ? 0 : schedule[late - 1].at
            let gap = schedule[late].at - lastAt
            let error = URLError(
                .timedOut,
                userInfo: [
                    NSLocalizedDescriptionKey: "MockNetwork: the body's next piece comes "
                        + "\(Timeouts.seconds(gap)) after the one before, "
                        + (gap > idleLimit ? "longer than" : "as long as")
                        + " the request's timeout of \(Timeouts.seconds(idleLimit)): a gap that long ends the request."
                ])
            failure = (lastAt + idleLimit, error)
            count = late
        }
        if let (limit, error) = resourceLimit {
            let ends = failure?.at ?? (count > 0 ? schedule[count - 1].at : 0)
            if ends > limit {
                count = min(count, schedule.count(dueBy: limit))
                failure = (limit, error)
            }
        }
        self.data = data
        self.schedule = schedule
        self.whole = !everyPiece
        self.count = everyPiece ? count : min(count, 1)
        self.failure = failure
        self.start = .now()
        wholeUpTo = count > 0 ? schedule[count - 1] : nil
    }

    /// With `whole`: the last piece that comes, whose end and time the one piece takes.
    private let wholeUpTo: BodyPacing.Piece?

    mutating func step(now: DispatchTime) -> Step {
        guard next < count else {
            guard let failure else { return .finish }
            let due = start + failure.at
            return due <= now ? .fail(failure.error) : .wait(until: due)
        }
        let piece =
            whole
            ? wholeUpTo.map { BodyPacing.Piece(range: 0..<$0.range.upperBound, at: $0.at) } ?? schedule[0]
            : schedule[next]
        let due = start + piece.at
        guard due <= now else { return .wait(until: due) }
        next += 1
        return .piece(
            data.subdata(in: data.startIndex + piece.range.lowerBound..<data.startIndex + piece.range.upperBound))
    }
}

/// Delivering a paced body: the response at once, then each piece from the client's context when it
/// is due (a timer wakes the request for the next one), then the end or the fault. A cancel stops it
/// at once; on Linux a suspend pauses it until the task is resumed.
extension MockURLProtocol {
    /// Starts delivering `data` as `pacing` says, right after the response went to the client.
    func startStream(_ data: Data, _ pacing: BodyPacing) {
        // On Linux `data(for:)` and completion handlers keep only the last piece: they get the body
        // in one, when its last piece is due.
        let (idleLimit, resourceDeadline, resourceTimeout) = exchange.withLock {
            ($0.timeout, $0.resourceDeadline, $0.resourceTimeout)
        }
        var resourceLimit: (TimeInterval, any Error)?
        if resourceDeadline != .distantFuture {
            let now = DispatchTime.now().uptimeNanoseconds
            let left = Double(resourceDeadline.uptimeNanoseconds &- min(now, resourceDeadline.uptimeNanoseconds)) / 1e9
            let method = request.httpMethod ?? "GET"
            resourceLimit = (
                left,
                URLError(
                    .timedOut,
                    userInfo: [
                        NSLocalizedDescriptionKey: "MockNetwork: the body of \(method) "
                            + "\(request.url?.absoluteString ?? "") was still arriving at the session's "
                            + "timeoutIntervalForResource of \(resourceTimeout) s."
                    ])
            )
        }
        let stream = BodyStream(
            data, pacing, idleLimit: idleLimit, resourceLimit: resourceLimit, everyPiece: wantsChunks)
        exchange.withLock { $0.phase = .streaming(stream) }
        deliverDuePieces()
    }

    /// From the client's context: delivers the pieces that are due, then ends the body or waits for
    /// the next piece.
    func deliverDuePieces() {
        // A bounded number of pieces per turn: the rest come on the next, so the client's context
        // (on Linux Foundation's queue, which every session shares) is never held for work that
        // grows with the body.
        for _ in 0..<Self.piecesPerTurn {
            let step: BodyStream.Step = exchange.withLock { exchange in
                guard case .streaming(var stream) = exchange.phase, !exchange.stopped else { return .none }
                if let cut = exchange.streamCut {
                    exchange.phase = .done
                    return .fail(cut)
                }
                let step = stream.step(now: .now())
                switch step {
                case .finish, .fail: exchange.phase = .done
                default: exchange.phase = .streaming(stream)
                }
                return step
            }
            switch step {
            case .none:
                return
            case .piece(let data):
                if !data.isEmpty { client?.urlProtocol(self, didLoad: data) }
            case .finish:
                endsInRegistry()
                client?.urlProtocolDidFinishLoading(self)
                return
            case .fail(let error):
                endsInRegistry()
                client?.urlProtocol(self, didFailWithError: SelfDescribingError.describing(error))
                return
            case .wait(let due):
                wakeForPiece(at: due)
                return
            }
        }
        wakeForPiece(at: .now())
    }

    /// The body's end is near: out of flight before the client can see it (and end its test).
    private func endsInRegistry() {
        exchange.withLock { $0.registry }?.ended(id)
    }

    /// Ends a body still arriving with `error`, at its next turn in the client's context; whether one
    /// was arriving.
    func cutStream(with error: any Error) -> Bool {
        let cut = exchange.withLock { exchange -> Bool in
            guard case .streaming = exchange.phase, !exchange.stopped, exchange.streamCut == nil else { return false }
            exchange.streamCut = error
            exchange.delay?.cancel()
            return true
        }
        if cut { backToClientForPieces() }
        return cut
    }

    /// How many pieces one turn in the client's context delivers at most.
    static let piecesPerTurn = 64

    /// Comes back to the client's context at `due`, unless the request ends first.
    private func wakeForPiece(at due: DispatchTime) {
        let this = WeakProtocol(self)
        let wake = DispatchWorkItem { this.value?.backToClientForPieces() }
        let scheduled = exchange.withLock { exchange in
            guard case .streaming = exchange.phase else { return false }
            // One wake-up at a time: after a suspend and resume, the earlier one is not needed.
            exchange.delay?.cancel()
            exchange.delay = wake
            return true
        }
        if scheduled { DispatchQueue.global().asyncAfter(deadline: due, execute: wake) }
    }

    private func backToClientForPieces() {
        let this = WeakProtocol(self)
        #if canImport(FoundationNetworking)
            // As for an answer (see `wake(with:)`): this thread takes Foundation's queue, or the task
            // is resumed, which calls `startLoading`, which delivers what is due.
            if !FoundationQueue.run({ this.value?.deliverDuePieces() }) {
                DispatchQueue.global().async { this.value?.task?.resume() }
            }
        #else
            guard let thread = exchange.withLock({ $0.clientThread }) else { return }
            thread.perform { this.value?.deliverDuePieces() }
        #endif
    }
}
