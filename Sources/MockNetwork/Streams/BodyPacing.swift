import Foundation

/// How a response's body arrives over time: the pieces it comes in, when each arrives after the
/// response, and a fault part-way. MockNetwork keeps the time itself, the same on every platform.
struct BodyPacing: Sendable {
    enum Shape: Sendable {
        /// Pieces ending at these offsets, the first with the response and each next `interval`
        /// seconds after the one before.
        case pieces(ends: [Int], interval: Double)
        /// The body at this many bytes a second, each piece arriving when its last byte would.
        case rate(Int)
    }

    /// The body fails after this many bytes with `error`, instead of ending.
    struct Fault: Sendable {
        let after: Int
        let error: any Error
    }

    /// A piece of the body and when it arrives, in seconds after the response.
    struct Piece: Sendable, Equatable {
        let range: Range<Int>
        let at: Double
    }

    var shape: Shape?
    var fault: Fault?
    /// Whether the response says how long the body is: not for a stream, whose length a server
    /// does not know when it starts.
    var sendsLength = true

    /// A piece for each twentieth of a second at a given rate (so pieces keep coming at a steady pace).
    static let piecesPerSecond = 20

    /// The pieces of a body of `length` bytes, up to the fault when there is one. Each is computed
    /// when asked for (``piece(_:length:)``): a slow rate or many pieces build nothing up front.
    func schedule(length: Int) -> Schedule {
        Schedule(pacing: self, length: length)
    }

    /// The pieces of one body, computed one at a time.
    struct Schedule {
        let pacing: BodyPacing
        let length: Int
        /// How many pieces there are, the fault's cut applied.
        let count: Int

        init(pacing: BodyPacing, length: Int) {
            self.pacing = pacing
            self.length = length
            let all = pacing.rawCount(length: length)
            guard let fault = pacing.fault else {
                count = all
                return
            }
            // Up to the fault: the piece it falls in is cut there, later ones never come.
            count = Self.firstIndex(in: all) { pacing.rawPiece($0, length: length).range.lowerBound >= fault.after }
        }

        subscript(index: Int) -> Piece {
            let piece = pacing.rawPiece(index, length: length)
            guard let fault = pacing.fault else { return piece }
            return Piece(range: piece.range.lowerBound..<min(piece.range.upperBound, fault.after), at: piece.at)
        }

        /// The number of pieces due at or before `seconds` (their times never go down).
        func count(dueBy seconds: Double) -> Int {
            Self.firstIndex(in: count) { self[$0].at > seconds }
        }

        /// The first piece that comes `limit` seconds or more after the one before it (the first one:
        /// after the response), or `nil`. The gaps are known per shape: a rate's are one size but
        /// the first's and the last's, pieces at an interval are that interval apart.
        func firstGap(atLeast limit: Double) -> Int? {
            guard count > 0 else { return nil }
            if self[0].at >= limit { return 0 }
            guard count > 1 else { return nil }
            switch pacing.shape {
            case .pieces(_, let interval): return interval >= limit ? 1 : nil
            case .rate:
                if self[1].at - self[0].at >= limit { return 1 }
                let last = count - 1
                return last > 1 && self[last].at - self[last - 1].at >= limit ? last : nil
            case nil: return nil
            }
        }

        /// The first index in `0..<count` for which `isPast` holds (it holds for all after it), or `count`.
        static func firstIndex(in count: Int, where isPast: (Int) -> Bool) -> Int {
            var (low, high) = (0, count)
            while low < high {
                let middle = (low + high) / 2
                if isPast(middle) { high = middle } else { low = middle + 1 }
            }
            return low
        }
    }

    /// How many pieces a body of `length` bytes comes in, before any fault.
    private func rawCount(length: Int) -> Int {
        switch shape {
        case .pieces(let ends, _):
            return ends.count + ((ends.last ?? 0) < length ? 1 : 0)
        case .rate(let bytesPerSecond):
            let size = max(1, bytesPerSecond / Self.piecesPerSecond)
            return (length + size - 1) / size
        case nil:
            return 1
        }
    }

    /// Piece `index` of a body of `length` bytes, before any fault.
    private func rawPiece(_ index: Int, length: Int) -> Piece {
        switch shape {
        case .pieces(let ends, let interval):
            let start = index == 0 ? 0 : min(ends[index - 1], length)
            let end = index < ends.count ? min(ends[index], length) : length
            return Piece(range: start..<max(start, end), at: Double(index) * interval)
        case .rate(let bytesPerSecond):
            let size = max(1, bytesPerSecond / Self.piecesPerSecond)
            let start = index * size
            let end = min(length, start + size)
            return Piece(range: start..<end, at: Double(end) / Double(bytesPerSecond))
        case nil:
            return Piece(range: 0..<length, at: 0)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
