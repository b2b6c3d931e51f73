#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A value behind a lock (`package`: the server module keeps its state in it too).
///
/// `@unchecked Sendable` is sound here: the only stored state is `value`, and every read
/// and write of it happens inside `withLock`, while `lock` is held.
/// (`Synchronization.Mutex` would do the same, but needs iOS 18 / macOS 15 on Apple. The lock is
/// the platform's own rather than `NSLock`: every request takes several, and `NSLock` costs an
/// object of its own and a dynamic call per use.)
///
/// Keep `Value` of some size (not `()`): ThreadSanitizer reports accesses to an empty value here as
/// races on the box itself.
package final class Locked<Value>: @unchecked Sendable {
    #if canImport(Darwin)
        private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
        private let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
        #else
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
        #endif
    }

    deinit {
        #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
        #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&value)
    }
}
