import Foundation

/// A value behind an `NSLock`.
///
/// `@unchecked Sendable` is sound here: the only stored state is `value`, and every read
/// and write of it happens inside `withLock`, while `lock` is held.
/// (`Synchronization.Mutex` would do the same, but needs iOS 18 / macOS 15 on Apple.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
