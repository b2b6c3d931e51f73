#if !canImport(FoundationNetworking)
    import CoreFoundation
    import Foundation

    /// The thread that ran `startLoading`, through its run loop: on Apple platforms, a protocol must
    /// make every client call on that thread, in the run loop modes it was started in (Apple's
    /// CustomHTTPProtocol sample; OHHTTPStubs delivers the same way). `stopLoading` runs there too,
    /// so a stop and a delivery never race.
    ///
    /// `@unchecked Sendable`: `CFRunLoopPerformBlock` and `CFRunLoopWakeUp` may be called from any
    /// thread; nothing else of the run loop is touched off its thread.
    struct ClientThread: @unchecked Sendable {
        let runLoop: CFRunLoop
        let modes: CFArray

        /// The current thread's run loop, in the default mode and the mode it runs in now.
        static func current() -> ClientThread {
            let runLoop: CFRunLoop = CFRunLoopGetCurrent()
            var modes: [CFString] = [CFRunLoopMode.defaultMode.rawValue]
            if let mode = CFRunLoopCopyCurrentMode(runLoop), mode != CFRunLoopMode.defaultMode {
                modes.append(mode.rawValue)
            }
            return ClientThread(runLoop: runLoop, modes: modes as CFArray)
        }

        /// Whether the caller is on this thread.
        var isCurrent: Bool { CFRunLoopGetCurrent() === runLoop }

        /// Runs `block` on the thread, soon.
        func perform(_ block: @escaping () -> Void) {
            CFRunLoopPerformBlock(runLoop, modes, block)
            CFRunLoopWakeUp(runLoop)
        }
    }
#endif
