#if canImport(FoundationNetworking)
    import Dispatch
    import Foundation
    import FoundationNetworking

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Musl)
        import Musl
    #endif

    /// Foundation's one serial queue on Linux: every session's work queue targets it, `startLoading`
    /// and `stopLoading` run on it, and Foundation reads each session's task registry on it without
    /// a lock. A protocol's client may only be called while it is held (from any other thread the
    /// reads race, and crash at times).
    ///
    /// MockNetwork holds it without a second hop through `startLoading`: `sync` on a queue that
    /// targets it (the work queue of a session of its own) runs a block on the calling thread while
    /// every queue up to the shared one is held, the same exclusion `startLoading` has. The block's
    /// thread delivers the answer at once, instead of waking one of Foundation's threads with
    /// `task.resume()` to do it.
    enum FoundationQueue {
        /// A queue that targets the shared one: a session's `workQueue`, read once. `nil` if a
        /// future Foundation moves it; the caller then re-enters `startLoading` instead.
        private static let entry: DispatchQueue? = {
            let session = URLSession(configuration: .ephemeral)
            return TaskInternals.child(of: session, named: "workQueue") as? DispatchQueue
        }()

        /// Marks the threads that hold the queue now, through MockNetwork's own code (inside
        /// `startLoading`, `stopLoading` or ``run(_:)``): a `sync` from there would trap.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            return key
        }()

        /// Whether the calling thread holds the queue, as far as MockNetwork's code knows.
        static var isHeld: Bool { pthread_getspecific(key) != nil }

        /// Runs `body` marked as holding the queue; the caller holds it.
        static func holding<T>(_ body: () throws -> T) rethrows -> T {
            let previous = pthread_getspecific(key)
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
            defer { pthread_setspecific(key, previous) }
            return try body()
        }

        /// Runs `body` holding the queue: on this thread, waiting while Foundation works, or later
        /// on Foundation's thread when this thread holds it already. `false` if the queue was not
        /// found (nothing runs).
        ///
        /// At most ``syncLimit`` threads wait here at once; past that the block is queued (`async`)
        /// and the thread goes on. A thread that waits is one Dispatch cannot use: were every thread
        /// of the process waiting, none would be left to run Foundation's queue, and nothing would
        /// ever run again.
        static func run(_ body: @escaping @Sendable () -> Void) -> Bool {
            guard let entry else { return false }
            let waits =
                !isHeld
                && waiters.withLock { count in
                    guard count < syncLimit else { return false }
                    count += 1
                    return true
                }
            if !waits {
                entry.async { holding(body) }
                return true
            }
            defer { waiters.withLock { $0 -= 1 } }
            entry.sync { holding(body) }
            return true
        }

        /// How many threads may wait for the queue at once.
        static let syncLimit = 4
        private static let waiters = Locked(0)
    }
#endif
