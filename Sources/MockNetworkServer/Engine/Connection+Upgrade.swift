import Dispatch
import Foundation

/// A protocol a connection switches to after `101 Switching Protocols` (a WebSocket): it gets the
/// bytes the client sends, and writes through the ``UpgradedChannel`` it was given.
protocol ConnectionUpgrade: AnyObject, Sendable {
    /// Takes what arrived: consumes from the front of `bytes` what it read (a frame cut short stays
    /// for the next call); `ended` when the client ended its side of the connection. Returns whether
    /// it takes more now (false pauses reading until ``UpgradedChannel/resumeReading()``). Called on
    /// the connection's queue, one call at a time, outside its locks.
    func received(_ bytes: inout ByteQueue, ended: Bool) -> Bool
    /// The `101` went out and the connection is the protocol's: what it sends goes to the client from
    /// now on. Called once, on the connection's queue, before the first ``received(_:ended:)``.
    func switched()
    /// The connection closed (whoever closed it), or closed before the switch (with no call to
    /// ``switched()``); called once, on the connection's queue.
    func connectionClosed()
}

/// Where an upgraded protocol writes, and how it closes its connection. Every method may be called
/// from any thread; once the connection closed they do nothing.
final class UpgradedChannel: Sendable {
    private let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    /// Sends `bytes` (what the socket takes now goes at once); returns the bytes still waiting to be
    /// sent, `nil` when the connection is closing or closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Int? {
        send(bytes, unlessOver: .max)
    }

    /// Sends `bytes` as ``send(_:)`` does, unless more than `limit` bytes wait to be sent already:
    /// then sends nothing and returns -1.
    func send(_ bytes: [UInt8], unlessOver limit: Int) -> Int? {
        connection.state.withLock { state -> Int? in
            guard state.phase == .upgraded else { return nil }
            guard state.outbound.count <= limit else { return -1 }
            state.outbound.append(contentsOf: bytes)
            connection.flush(&state)
            return state.phase == .upgraded ? state.outbound.count : nil
        }
    }

    /// Runs `body` once the bytes waiting to be sent fall to ``lowWater`` (at once when they are
    /// there already, or the connection is closed): a writer waits for a slow reader this way.
    func whenDrained(_ body: @escaping @Sendable () -> Void) {
        let now = connection.state.withLock { state -> Bool in
            guard state.phase == .upgraded, state.outbound.count > Self.lowWater else { return true }
            state.drainWaiters.append(body)
            return false
        }
        if now { body() }
    }

    /// Sends what is waiting, then shuts the sending side and closes once the client closes too (or
    /// the linger time passes).
    func close() {
        connection.state.withLock { state in
            guard state.phase == .upgraded else { return }
            state.phase = .closingAfterFlush
            connection.flush(&state)
            connection.updateReading(&state)
        }
    }

    /// The connection's serial queue, where its bytes are read and handed to the protocol.
    var queue: DispatchQueue { connection.queue }

    /// Bytes waiting to be sent.
    var queuedBytes: Int { connection.state.withLock { $0.outbound.count } }

    /// Sends what is waiting, then closes at once: no close handshake, no lingering (a drop).
    func cutAfterSending() {
        connection.state.withLock { state in
            guard state.phase == .upgraded else { return }
            state.peerFinished = true
            state.phase = .closingAfterFlush
            connection.flush(&state)
        }
    }

    /// Closes the connection now, dropping what was not sent yet.
    func cut() {
        connection.state.withLock { connection.closeNow(&$0) }
    }

    /// Takes bytes again after ``ConnectionUpgrade/received(_:ended:)`` returned false.
    func resumeReading() {
        connection.queue.async { [connection] in
            connection.state.withLock { state in
                guard state.upgradeReadPaused else { return }
                state.upgradeReadPaused = false
                connection.updateReading(&state)
            }
            connection.process()
        }
    }

    /// Bytes waiting to be sent at or under which ``whenDrained(_:)`` runs.
    static let lowWater = HTTPServerLimits.outboundLowWater
}

extension Connection {
    /// Switches to `upgrade` after the `101` head `head` (the answer `serial`'s): from any thread,
    /// through the writer's calls.
    func switchProtocols(
        _ serial: Int, head: [UInt8], to upgrade: any ConnectionUpgrade, _ state: inout ConnectionState
    ) -> Bool {
        guard state.phase == .open, state.answer?.serial == serial else { return false }
        state.answer = nil
        state.upgradeAsked = false
        state.pending.removeAll()
        state.parsingEnded = true
        state.phase = .upgraded
        state.upgrade = upgrade
        state.lastProgress = ConnectionState.now
        state.outbound.append(contentsOf: head)
        return true
    }

    /// Hands what arrived to the upgraded protocol: on the connection's queue.
    func processUpgraded() {
        guard
            let (upgrade, bytes, ended) = state.withLock({ state -> ((any ConnectionUpgrade), ByteQueue, Bool)? in
                guard state.phase == .upgraded || state.phase == .closingAfterFlush, let upgrade = state.upgrade,
                    !state.upgradeReadPaused, !state.inbound.isEmpty || state.peerFinished
                else { return nil }
                defer { state.inbound = ByteQueue() }
                return (upgrade, state.inbound, state.peerFinished)
            })
        else { return }
        var waiting = bytes
        let more = upgrade.received(&waiting, ended: ended)
        state.withLock { state in
            guard state.phase != .closed else { return }
            // Nothing arrives meanwhile: reads run on this queue too.
            if !waiting.isEmpty { state.inbound = waiting }
            if !more {
                state.upgradeReadPaused = true
                updateReading(&state)
            }
        }
    }

    /// Runs what waits for the bytes waiting to be sent to fall low; in the state's lock.
    func runDrainWaiters(_ state: inout ConnectionState) {
        guard !state.drainWaiters.isEmpty,
            state.phase == .closed || state.outbound.count <= UpgradedChannel.lowWater
        else { return }
        let waiters = state.drainWaiters
        state.drainWaiters.removeAll()
        for waiter in waiters { queue.async(execute: waiter) }
    }
}
