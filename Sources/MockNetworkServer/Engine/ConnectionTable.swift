import Foundation
import MockNetwork

/// A server's open connections: it admits them up to the limit, keeps each until its descriptor is
/// closed, closes them all when the server stops, and wakes whoever waits for the count to reach zero.
final class ConnectionTable: Sendable {
    private struct Contents {
        var open: [ObjectIdentifier: Connection] = [:]
        var stopped = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let contents = Locked(Contents())

    /// Takes `connection` unless the server stopped or `limit` connections are open.
    func admit(_ connection: Connection, limit: Int) -> Bool {
        contents.withLock { contents in
            guard !contents.stopped, contents.open.count < limit else { return false }
            contents.open[ObjectIdentifier(connection)] = connection
            return true
        }
    }

    /// Forgets a connection whose descriptor is closed.
    func remove(_ connection: Connection) {
        let woken = contents.withLock { contents -> [CheckedContinuation<Void, Never>] in
            contents.open[ObjectIdentifier(connection)] = nil
            guard contents.open.isEmpty else { return [] }
            defer { contents.waiters.removeAll() }
            return Array(contents.waiters.values)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Admits nothing more, and closes every open connection; one whose answer is in progress waits
    /// up to `grace` for its client to hang up first (``Connection/shutDown(grace:)``). Only the first
    /// call does anything.
    func stop(grace: TimeInterval = 0) {
        let open = contents.withLock { contents -> [Connection] in
            guard !contents.stopped else { return [] }
            contents.stopped = true
            return Array(contents.open.values)
        }
        for connection in open { connection.shutDown(grace: grace) }
    }

    var count: Int { contents.withLock { $0.open.count } }

    /// Returns when no connection is open (at once if none is), or when the task is cancelled.
    func waitUntilEmpty() async {
        let id = contents.withLock { contents in
            defer { contents.nextWaiter += 1 }
            return contents.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiting = contents.withLock { contents -> Bool in
                    // A cancel that came before this is seen here; one after finds the waiter.
                    guard !contents.open.isEmpty, !Task.isCancelled else { return false }
                    contents.waiters[id] = continuation
                    return true
                }
                if !waiting { continuation.resume() }
            }
        } onCancel: {
            contents.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
