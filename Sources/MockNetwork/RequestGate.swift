import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Requests that ``MockRegistry/hold(_:method:fileID:filePath:line:column:)`` keeps waiting until
/// the test releases them, so that a test can look at a client mid-request without sleeping.
///
/// ```swift
/// let gate = mocks.hold("https://api.example.com/feed")
/// let load = Task { try await model.load() }
/// try await gate.arrived()          // the request reached MockNetwork
/// #expect(model.isLoading)
/// gate.release(with: .json(feed))
/// try await load.value
/// ```
///
/// A held request still ends at its timeout (`URLError(.timedOut)`) or when its task is cancelled;
/// one still held when the test ends fails the test, naming its URL.
public final class RequestGate: Sendable {
    private struct Held {
        let request: RecordedRequest
        let continuation: CheckedContinuation<MockResponse, any Error>
    }

    private struct State {
        /// Every request that reached the gate, oldest first.
        var arrivals: [RecordedRequest] = []
        /// How many of them `arrived(timeout:)` has returned.
        var returned = 0
        /// Waits for the next arrival, each woken by it (or by its deadline, or a cancel).
        var arrivalWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var held: [Int: Held] = [:]
        var released: MockResponse?
        var nextID = 0
    }

    private let state = Locked(State())
    /// What the gate holds, for messages: `hold("…")`.
    let name: String
    let location: SourceLocation

    /// Called when a request comes to be held (the registry's end of a test waits for that).
    private let onHold: @Sendable () -> Void

    init(name: String, location: SourceLocation, onHold: @escaping @Sendable () -> Void = {}) {
        self.name = name
        self.location = location
        self.onHold = onHold
    }

    /// Waits until a request reaches the gate, and returns it; each call returns the next one, in the
    /// order they arrived (a request that arrived before the call counts).
    ///
    /// Time in which Swift's concurrency pool ran nothing it was given (other tests held its threads,
    /// so the task that makes the request could not run either) does not count toward `timeout`.
    ///
    /// - Throws: ``MockNetworkError/requestNotSeen(_:)`` when none arrives within `timeout` seconds.
    @discardableResult
    public func arrived(timeout: Duration) async throws -> RecordedRequest {
        try await arrived(timeout: BodyPacing.seconds(timeout))
    }

    /// The same, with the timeout in seconds (`timeout: 2`; the `Duration` form reads `timeout: .seconds(2)`).
    @discardableResult
    public func arrived(timeout: TimeInterval = 5) async throws -> RecordedRequest {
        let clock = PoolClock()
        let start = DispatchTime.now()
        while true {
            try Task.checkCancellation()
            if let request = nextArrival() { return request }
            let deadline = clock.deadline(start: start, timeout: timeout)
            if DispatchTime.now() >= deadline {
                guard await clock.isOver(start: start, timeout: timeout) else { continue }
                try Task.checkCancellation()
                if let request = nextArrival() { return request }
                throw MockNetworkError.requestNotSeen(
                    "no request reached \(name) within \(timeout) s\(clock.note). Check that the code under test "
                        + "makes it, to that URL and with that method, or give arrived(timeout:) longer.")
            }
            await arrivalOrDeadline(deadline)
        }
    }

    /// The earliest arrival no call returned yet, taken.
    private func nextArrival() -> RecordedRequest? {
        state.withLock { state in
            guard state.returned < state.arrivals.count else { return nil }
            state.returned += 1
            return state.arrivals[state.returned - 1]
        }
    }

    /// Returns once a request arrives, at `deadline`, or on a cancel.
    private func arrivalOrDeadline(_ deadline: DispatchTime) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let state = self.state
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state in
                    guard state.returned == state.arrivals.count, !Task.isCancelled else { return false }
                    state.arrivalWaiters[id] = continuation
                    return true
                }
                guard waits else { return continuation.resume() }
                guard deadline != .distantFuture else { return }
                DispatchQueue.global().asyncAfter(deadline: deadline) {
                    state.withLock { $0.arrivalWaiters.removeValue(forKey: id) }?.resume()
                }
            }
        } onCancel: {
            state.withLock { $0.arrivalWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Answers every request held now, and every later one at once, with `response`.
    public func release(with response: MockResponse) {
        let held = state.withLock { state in
            state.released = response
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for request in held { request.continuation.resume(returning: response) }
    }

    /// The requests held now, oldest first.
    public var held: [RecordedRequest] {
        state.withLock { $0.held.sorted { $0.key < $1.key }.map(\.value.request) }
    }

    /// The responder of the gate's route: notes the arrival, then waits for the release.
    func hold(_ request: URLRequest) async throws -> MockResponse {
        let recorded = RecordedRequest(request, body: request.httpBody ?? Data())
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (now, waiters): (Result<MockResponse, any Error>?, [CheckedContinuation<Void, Never>]) =
                    state.withLock { state in
                        state.arrivals.append(recorded)
                        let waiters = Array(state.arrivalWaiters.values)
                        state.arrivalWaiters = [:]
                        if Task.isCancelled { return (.failure(CancellationError()), waiters) }
                        if let released = state.released { return (.success(released), waiters) }
                        state.held[id] = Held(request: recorded, continuation: continuation)
                        return (nil, waiters)
                    }
                // Each takes the next arrival in turn (`nextArrival()`).
                for waiter in waiters { waiter.resume() }
                if let now { continuation.resume(with: now) } else { onHold() }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// At the end of a test: a message for each request still held, which then fails (as a cancel
    /// does) so that nothing waits on a test that is over.
    func endOfTest() -> [MockFailure] {
        let held = state.withLock { state in
            defer { state.held = [:] }
            return state.held.sorted { $0.key < $1.key }.map(\.value)
        }
        let ended = URLError(
            .cancelled,
            userInfo: [NSLocalizedDescriptionKey: "MockNetwork: the test ended while \(name) held this request."])
        for request in held { request.continuation.resume(throwing: ended) }
        return held.map { held in
            MockFailure(
                message: "MockNetwork: \(held.request.method) \(held.request.url.absoluteString) was still held by "
                    + "\(name) when the test ended. Release it with release(with:) before the test returns, or "
                    + "cancel the request.",
                location: location)
        }
    }
}

extension MockRegistry {
    /// Holds every request for `url` (and `method`, when given) until the test calls
    /// ``RequestGate/release(with:)``: nothing is answered before, so the test can check a loading
    /// state, or the order of events, without a sleep. ``RequestGate/arrived(timeout:)-(Duration)`` waits until
    /// a request got there.
    @discardableResult
    public func hold(
        _ url: String, method: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> RequestGate {
        hold(
            RequestMatch.exactly(url, method: method), fileID: fileID, filePath: filePath,
            line: line, column: column)
    }

    /// Holds every request that `match` describes until the test releases it (see
    /// ``hold(_:method:fileID:filePath:line:column:)``).
    @discardableResult
    public func hold(
        _ match: RequestMatch,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
    ) -> RequestGate {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let gate = RequestGate(name: "hold(\(match.description))", location: location) { [weak core] in
            core?.changed()
        }
        _ = add(match, nil, location, [.held { .mock(try await gate.hold($0)) }], repeatsLast: true)
        state.withLock { $0.gates.append(gate) }
        return gate
    }
}
