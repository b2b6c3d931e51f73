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

    /// The pieces of a body of `length` bytes, up to the fault when there is one.
    func schedule(length: Int) -> [Piece] {
        var pieces: [Piece] = []
        switch shape {
        case .pieces(let ends, let interval):
            var start = 0
            for (index, end) in ends.enumerated() {
                pieces.append(Piece(range: start..<min(end, length), at: Double(index) * interval))
                start = min(end, length)
            }
            if start < length { pieces.append(Piece(range: start..<length, at: Double(ends.count) * interval)) }
        case .rate(let bytesPerSecond):
            let size = max(1, bytesPerSecond / Self.piecesPerSecond)
            var start = 0
            while start < length {
                let end = min(length, start + size)
                pieces.append(Piece(range: start..<end, at: Double(end) / Double(bytesPerSecond)))
                start = end
            }
        case nil:
            pieces.append(Piece(range: 0..<length, at: 0))
        }
        guard let fault else { return pieces }
        // Up to the fault: the piece it falls in is cut there, later ones never come.
        return pieces.compactMap { piece in
            guard piece.range.lowerBound < fault.after else { return nil }
            return Piece(range: piece.range.lowerBound..<min(piece.range.upperBound, fault.after), at: piece.at)
        }
    }

    /// Seconds in `duration`.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
