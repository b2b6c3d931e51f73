import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A body that arrives over time (``BodyPacing``): where its delivery stands.
struct BodyStream {
    let data: Data
    let pieces: [BodyPacing.Piece]
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
    /// request's timeout) ends it with `URLError(.timedOut)` then, as a stalled connection does.
    /// With `everyPiece` false, the body comes in one piece when its last piece is due.
    init(_ data: Data, _ pacing: BodyPacing, idleLimit: TimeInterval, everyPiece: Bool) {
        var pieces = pacing.schedule(length: data.count)
        var failure = pacing.fault.map { (at: pieces.last?.at ?? 0, error: $0.error) }
        var lastAt = 0.0
        for (index, piece) in pieces.enumerated() {
            guard piece.at - lastAt >= idleLimit else {
                lastAt = piece.at
                continue
            }
            let error = URLError(
                .timedOut,
                userInfo: [
                    NSLocalizedDescriptionKey: "MockNetwork: the body's next piece comes "
                        + "\(String(format: "%g", piece.at - lastAt)) s after "
                        + "the one before, longer than the request's timeout of \(idleLimit) s."
                ])
            failure = (lastAt + idleLimit, error)
            pieces.removeSubrange(index...)
            break
        }
        if !everyPiece, let last = pieces.last {
            pieces = [BodyPacing.Piece(range: 0..<last.range.upperBound, at: last.at)]
        }
        self.data = data
        self.pieces = pieces
        self.failure = failure
        self.start = .now()
    }

    mutating func step(now: DispatchTime) -> Step {
        guard next < pieces.count else {
            guard let failure else { return .finish }
            let due = start + failure.at
            return due <= now ? .fail(failure.error) : .wait(until: due)
        }
        let piece = pieces[next]
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
        let stream = BodyStream(
            data, pacing, idleLimit: exchange.withLock { $0.timeout }, everyPiece: wantsChunks)
        exchange.withLock { $0.phase = .streaming(stream) }
        deliverDuePieces()
    }

    /// From the client's context: delivers the pieces that are due, then ends the body or waits for
    /// the next piece.
    func deliverDuePieces() {
        while true {
            let step: BodyStream.Step = exchange.withLock { exchange in
                guard case .streaming(var stream) = exchange.phase, !exchange.stopped else { return .none }
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
                client?.urlProtocolDidFinishLoading(self)
                return
            case .fail(let error):
                client?.urlProtocol(self, didFailWithError: error)
                return
            case .wait(let due):
                wakeForPiece(at: due)
                return
            }
        }
    }

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
