import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from a ``MockRegistry``'s handlers.
///
/// Sessions made by a registry use a subclass of their own, so you rarely name this class.
/// The class itself serves the process-wide ``registry``, the classic style of the tutorials:
/// ```swift
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [MockURLProtocol.self]
/// MockURLProtocol.registry.register("https://api.example.com/user") { _ in try .json("{}") }
/// ```
/// Prefer a registry per test: the process-wide one is shared by every test in the process.
public class MockURLProtocol: URLProtocol {
    /// The process-wide registry that sessions configured with `MockURLProtocol.self` are answered from.
    public static let registry = MockRegistry(protocolClass: MockURLProtocol.self)

    /// Where one request is: answered or not, waiting, stopped. Guarded by its lock, because
    /// `stopLoading` and the end of a wait happen on other threads than `startLoading`.
    private struct Progress {
        var started = false
        var answer: MockRegistry.Answer?
        var ready = false
        var finished = false
        var wait: DispatchWorkItem?
        var passthrough: URLSessionTask?
        weak var registry: MockRegistry?
    }

    private let progress = Locked(Progress())

    /// Takes every request, whatever its scheme: a request no handler matches fails instead of
    /// reaching the network.
    override public class func canInit(with request: URLRequest) -> Bool { true }

    /// The request as it is.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// Answers the request from the registry this class routes to.
    override public func startLoading() {
        // Back after a wait: deliver what was waiting (see `wake()`).
        enum Entry { case first, deliver(MockRegistry.Answer), ignore }
        let entry: Entry = progress.withLock { progress in
            if !progress.started {
                progress.started = true
                return .first
            }
            guard progress.ready, !progress.finished, let answer = progress.answer else { return .ignore }
            progress.finished = true
            return .deliver(answer)
        }
        switch entry {
        case .first: break
        case .deliver(let answer):
            deliver(answer)
            return
        case .ignore: return
        }

        guard let registry = MockRegistry.registry(for: type(of: self)) else {
            finish(
                failure: URLError(
                    .resourceUnavailable,
                    userInfo: [
                        NSLocalizedDescriptionKey: "MockNetwork: the MockRegistry behind this session was released. "
                            + "Keep the registry alive for as long as you use its session."
                    ]))
            return
        }
        #if canImport(FoundationNetworking)
            if task is URLSessionDownloadTask {
                let error = MockNetworkError.downloadUnsupported(request.url?.absoluteString ?? "")
                registry.record(MockFailure(message: error.description, location: nil))
                finish(failure: error)
                return
            }
        #endif
        let body: Data
        do {
            body = try RequestBody.read(from: request, task: task)
        } catch {
            finish(failure: error)
            return
        }
        var request = self.request
        if request.httpBodyStream != nil { request.httpBodyStream = nil }
        if !body.isEmpty { request.httpBody = body }

        // In flight from here until delivered or stopped.
        registry.began(id, request)
        progress.withLock { $0.registry = registry }
        if let context = registry.handlerContext {
            // The handler runs where the registry's owner says (see `MockRegistry.HandlerContext`);
            // the answer comes back into `startLoading` as after a delay.
            let this = WeakProtocol(self)
            context { [request, body] in
                this.value?.proceed(registry.answer(request, body: body), request, registry, inStartLoading: false)
            }
            return
        }
        proceed(registry.answer(request, body: body), request, registry, inStartLoading: true)
    }

    /// Delivers `answer` now, after its delay (or the timeout, if that comes first), or after the
    /// real network answered. Off `startLoading`, delivery goes through `wake(with:)`.
    private func proceed(
        _ answer: MockRegistry.Answer, _ request: URLRequest, _ registry: MockRegistry, inStartLoading: Bool
    ) {
        if answer.passToNetwork {
            passToNetwork(request, registry: registry, number: answer.logNumber)
            return
        }
        var answer = answer
        if answer.delay > 0 {
            let timeout = TaskInternals.timeout(of: request, task: task)
            if answer.delay >= timeout {
                answer = MockRegistry.Answer(
                    result: .failure(
                        URLError(
                            .timedOut,
                            userInfo: [
                                NSLocalizedDescriptionKey: "MockNetwork: the response's delay of \(answer.delay) s is "
                                    + "longer than the request's timeout of \(timeout) s."
                            ])),
                    delay: timeout)
            }
        }
        guard answer.delay > 0 else {
            if inStartLoading {
                let deliverNow = progress.withLock { progress in
                    defer { progress.finished = true }
                    return !progress.finished
                }
                // Out of flight before the caller can see the answer (and end its test).
                registry.ended(id)
                if deliverNow { deliver(answer) }
            } else {
                wake(with: answer)
            }
            return
        }
        let this = WeakProtocol(self)
        let wake = DispatchWorkItem { [answer] in this.value?.wake(with: answer) }
        progress.withLock { progress in
            progress.answer = answer
            progress.wait = wake
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + answer.delay, execute: wake)
    }

    /// Stops a wait or a pass to the network; nothing is delivered after this.
    override public func stopLoading() {
        let (wait, passthrough, registry) = progress.withLock { progress in
            progress.finished = true
            return (progress.wait, progress.passthrough, progress.registry)
        }
        wait?.cancel()
        passthrough?.cancel()
        registry?.ended(id)
    }

    private var id: Int { ObjectIdentifier(self).hashValue }

    /// Ends a wait (on a thread of Dispatch's) by getting back into `startLoading` to deliver.
    private func wake(with answer: MockRegistry.Answer) {
        let registry: MockRegistry? = progress.withLock { progress in
            guard !progress.finished else { return nil }
            progress.answer = answer
            progress.ready = true
            return progress.registry
        }
        guard let registry else { return }
        registry.ended(id)
        #if canImport(FoundationNetworking)
            // On Linux, calling the client from any thread but `startLoading`'s crashes at times
            // (Foundation reads its task registry without a lock). Resuming the task makes
            // Foundation call `startLoading` again, on its own thread, where the answer is delivered.
            task?.resume()
        #else
            let deliverNow = progress.withLock { progress in
                guard !progress.finished else { return false }
                progress.finished = true
                return true
            }
            if deliverNow { deliver(answer) }
        #endif
    }

    private func passToNetwork(_ request: URLRequest, registry: MockRegistry, number: Int) {
        let this = WeakProtocol(self)
        let started = Date()
        // Not from here: on Linux every session's work queue targets one serial queue, which
        // `startLoading` runs on, and making a task on any session waits for that queue.
        DispatchQueue.global().async {
            let task = Self.network.dataTask(with: request) { data, response, error in
                let result: Result<(HTTPURLResponse, Data), any Error>
                if let response = response as? HTTPURLResponse {
                    result = .success((response, data ?? Data()))
                } else {
                    result = .failure(error ?? URLError(.badServerResponse))
                }
                registry.passedToNetwork(request, number: number, result: result, started: started)
                this.value?.wake(with: MockRegistry.Answer(result: result))
            }
            // Started only if the request was not stopped meanwhile; `stopLoading` cancels it after.
            let start = this.value?.progress.withLock { progress in
                guard !progress.finished else { return false }
                progress.passthrough = task
                return true
            }
            if start == true { task.resume() }
        }
    }

    /// The real network, for `MockRegistry.Unmatched.passToNetwork` and recording: no mock
    /// protocol, and no cache, so that what is recorded is what the server sent.
    private static let network: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    private func deliver(_ answer: MockRegistry.Answer) {
        switch answer.result {
        case .success(let (response, data)):
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            if let size = answer.chunkSize, data.count > size, wantsChunks {
                var offset = data.startIndex
                while offset < data.endIndex {
                    let end = data.index(offset, offsetBy: size, limitedBy: data.endIndex) ?? data.endIndex
                    client?.urlProtocol(self, didLoad: data.subdata(in: offset..<end))
                    offset = end
                }
            } else if !data.isEmpty {
                client?.urlProtocol(self, didLoad: data)
            }
            client?.urlProtocolDidFinishLoading(self)
        case .failure(let error):
            client?.urlProtocol(self, didFailWithError: error)
        }
    }

    private func finish(failure: any Error) {
        progress.withLock { $0.finished = true }
        client?.urlProtocol(self, didFailWithError: failure)
    }

    /// Whether the body may arrive in pieces: only a session delegate sees every piece; on Linux,
    /// `data(for:)` and completion handlers keep only the last one, and `task?.delegate` is the
    /// session's delegate for those too, so it cannot tell them apart (see ``TaskInternals``).
    private var wantsChunks: Bool {
        #if canImport(FoundationNetworking)
            return TaskInternals.deliversEveryChunk(task)
        #else
            return true
        #endif
    }
}

/// A weak reference to a protocol instance, for the closure that ends its wait on another thread.
///
/// `@unchecked Sendable` because `URLProtocol` is not `Sendable`; what that thread does with the
/// instance is safe: it reads and writes `progress` under its lock, calls `task?.resume()`
/// (Foundation locks inside), and on Apple platforms calls the client, which they allow from any thread.
private struct WeakProtocol: @unchecked Sendable {
    weak var value: MockURLProtocol?
    init(_ value: MockURLProtocol) { self.value = value }
}
