/// Bytes received and not yet parsed, or to send and not yet sent: an array and the offset of the
/// first byte still wanted. Consuming moves the offset; the array is compacted only when most of it
/// is spent, so taking bytes from the front costs nothing per byte.
struct ByteQueue {
    private var storage: [UInt8] = []
    private var start = 0

    /// The number of bytes waiting.
    var count: Int { storage.count - start }

    var isEmpty: Bool { start == storage.count }

    /// The waiting byte at `offset` from the front.
    subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// The offset of the first `byte` at or after `offset`, if any.
    func firstOffset(of byte: UInt8, from offset: Int) -> Int? {
        storage[(start + offset)...].firstIndex(of: byte).map { $0 - start }
    }

    /// Runs `body` over the waiting bytes in `range` (offsets from the front), without copying.
    func withBytes<Result, Failure: Error>(
        _ range: Range<Int>, _ body: (ArraySlice<UInt8>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(storage[(start + range.lowerBound)..<(start + range.upperBound)])
    }

    /// Runs `body` over all the waiting bytes, without copying.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        storage.append(contentsOf: bytes)
    }

    /// Appends what `body` writes to the end of the storage, with no array in between.
    mutating func append(_ body: (inout [UInt8]) -> Void) {
        body(&storage)
    }

    /// Drops `count` bytes from the front.
    mutating func removeFirst(_ count: Int) {
        start += count
        if start == storage.count {
            // Empty: keep a modest buffer for the next request, give back a large one.
            if storage.capacity > 1 << 20 {
                storage = []
            } else {
                storage.removeAll(keepingCapacity: true)
            }
            start = 0
        } else if start >= 1 << 16, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    mutating func removeAll() {
        removeFirst(count)
    }
}
