import Dispatch
import MockNetwork

/// The listening socket on 127.0.0.1 and the Dispatch source that accepts its connections.
final class Listener: Sendable {
    private struct State {
        var source: (any DispatchSourceRead)?
        var suspended = false
    }

    let port: Int
    private let fd: Int32
    private let queue = DispatchQueue(label: "MockNetworkServer.listener")
    private let state = Locked(State())
    /// Signalled once the source's cancel handler has closed the socket.
    private let closed = DispatchSemaphore(value: 0)

    /// Listens, and calls `accepted` on the listener's queue for each connection; `failingBind` is an
    /// `errno` for `bind` to fail with instead (MockNetwork's tests).
    init(backlog: Int32, failingBind: Int32? = nil, accepted: @escaping @Sendable (Int32, HTTPPeer) -> Void) throws {
        (fd, port) = try Socket.listenOnLoopback(backlog: backlog, failingBind: failingBind)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [fd, state, queue] in
            // A batch at a time, so a flood of connections cannot keep this queue from its cancel.
            for _ in 0..<64 {
                switch Socket.acceptConnection(from: fd) {
                case .connection(let client, let peer):
                    accepted(client, peer)
                case .noneWaiting:
                    return
                case .outOfDescriptors:
                    // The connection stays queued and the source would fire again at once: pause.
                    Self.pause(state, queue: queue)
                    return
                }
            }
        }
        source.setCancelHandler { [fd, closed] in
            // `shutdown` acts on the socket, not this descriptor: a copy a child process holds for the
            // instant between its fork and its exec (which no close-on-exec flag prevents) cannot keep
            // the port accepting. (Linux stops listening on it; elsewhere the call fails, harmlessly.)
            Socket.shutdownBoth(fd)
            Socket.closeDescriptor(fd)
            closed.signal()
        }
        state.withLock { $0.source = source }
        source.activate()
    }

    /// Stops accepting and closes the socket before it returns. Safe to call more than once.
    func stop() {
        let source = state.withLock { state -> (any DispatchSourceRead)? in
            defer { state.source = nil }
            if let source = state.source {
                source.cancel()
                if state.suspended { source.resume() }
            }
            return state.source
        }
        if source != nil { closed.wait() }
    }

    private static func pause(_ state: Locked<State>, queue: DispatchQueue) {
        state.withLock { state in
            guard let source = state.source, !state.suspended else { return }
            state.suspended = true
            source.suspend()
        }
        queue.asyncAfter(deadline: .now() + .milliseconds(100)) {
            state.withLock { state in
                guard let source = state.source, state.suspended else { return }
                state.suspended = false
                source.resume()
            }
        }
    }
}
