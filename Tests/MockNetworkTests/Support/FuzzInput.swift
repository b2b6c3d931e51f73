import Foundation

/// Inputs for the parsers' fuzz tests: random bytes, and random splices of the tokens a format is
/// made of (which reach deeper than bytes alone), from a seeded generator so a failure repeats.
struct FuzzInput: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    /// SplitMix64.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Up to `length` random bytes.
    mutating func bytes(upTo length: Int) -> Data {
        Data((0..<Int.random(in: 0...length, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) })
    }

    /// Up to `count` of `tokens` (and now and then a random byte) run together.
    mutating func splice(_ tokens: [String], upTo count: Int) -> Data {
        var data = Data()
        for _ in 0..<Int.random(in: 0...count, using: &self) {
            if Int.random(in: 0..<10, using: &self) == 0 {
                data.append(UInt8.random(in: 0...255, using: &self))
            } else {
                data += Data(tokens.randomElement(using: &self)!.utf8)
            }
        }
        return data
    }
}
