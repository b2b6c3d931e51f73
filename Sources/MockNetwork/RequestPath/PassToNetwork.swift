import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real network, for requests no handler answers under `Unmatched.passToNetwork` and for
/// recording an archive.
extension MockURLProtocol {
    func passToNetwork(_ request: URLRequest, registry: MockRegistry.Core, number: Int) {
        exchange.withLock { $0.waiting = .network }
        let this = WeakProtocol(self)
        NetworkPassage.send(
            request, for: registry, number: number,
            // Started only if the request was not stopped meanwhile; `stopLoading` cancels it after.
            keep: { task in
                this.value?.exchange.withLock { exchange in
                    guard exchange.isWorking else { return false }
                    exchange.passthrough = task
                    return true
                } == true
            },
            done: { result in this.value?.wake(with: MockRegistry.Answer(result: result)) })
    }
}

/// Sends a request a registry lets through to the real network, for either door (a session's
/// protocol, a served request): its answer is recorded when the registry records an archive, and
/// every redirect hop is held to what let the request through.
enum NetworkPassage {
    /// Sends `request` (number `number` in `registry`'s log) to the network. `keep` gets the task
    /// before it starts, to cancel it when the request ends first, and says whether to start it;
    /// `done` gets what the network answered.
    static func send(
        _ request: URLRequest, for registry: MockRegistry.Core, number: Int,
        keep: @escaping @Sendable (URLSessionDataTask) -> Bool,
        done: @escaping @Sendable (Result<(HTTPURLResponse, Data), any Error>) -> Void
    ) {
        let started = Date()
        // Only whether it records is kept: the backing itself is read again when the answer comes, so
        // that a task Foundation keeps does not keep a backing the registry let go of (its file's claim).
        let recording = registry.state.withLock { $0.backing?.sendsUnmatchedToNetwork == true }
        let unmatched = registry.unmatched
        let taskID = Locked<Int?>(nil)
        // Not from the caller's thread: on Linux every session's work queue targets one serial queue,
        // which `startLoading` runs on, and making a task on any session waits for that queue.
        DispatchQueue.global().async {
            let task = network.dataTask(with: request) { data, response, error in
                redirects.forget(taskID.withLock { $0 })
                let result: Result<(HTTPURLResponse, Data), any Error>
                if let response = response as? HTTPURLResponse {
                    result = .success((response, data ?? Data()))
                } else {
                    result = .failure(error ?? URLError(.badServerResponse))
                }
                registry.passedToNetwork(
                    request, number: number, result: result, started: started,
                    backing: registry.state.withLock { $0.backing })
                done(result)
            }
            guard keep(task) else { return }
            taskID.withLock { $0 = task.taskIdentifier }
            // A redirect to a host the rule does not name is not followed (the client gets the
            // redirect), and the test fails saying so.
            redirects.watch(task.taskIdentifier) { next in
                if recording || unmatched.passes(next) { return true }
                let method = request.httpMethod ?? "GET"
                registry.record(
                    MockFailure(
                        message: "MockNetwork: \(method) \(request.url?.absoluteString ?? "") went to the network, "
                            + "which redirected it to \(next.absoluteString), whose host \(next.host ?? "(none)") is "
                            + "not one of \(unmatched.hostList). The redirect was not followed: the client got it as "
                            + "it was.\nFix: register a handler for \(next.absoluteString), or name its host in "
                            + "passToNetwork(hosts:).",
                        location: nil))
                return false
            }
            task.resume()
        }
    }

    /// No mock protocol, and no cache, so that what is recorded is what the server sent.
    private static let network: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration, delegate: redirects, delegateQueue: nil)
    }()

    private static let redirects = NetworkRedirects()
}

/// Decides, for each request MockNetwork sent to the network, whether a redirect the server
/// answered with is followed.
private final class NetworkRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    private let rules = Locked<[Int: @Sendable (URL) -> Bool]>([:])

    func watch(_ task: Int, follows: @escaping @Sendable (URL) -> Bool) {
        rules.withLock { $0[task] = follows }
    }

    func forget(_ task: Int?) {
        guard let task else { return }
        _ = rules.withLock { $0.removeValue(forKey: task) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let follows = rules.withLock { $0[task.taskIdentifier] }
        guard let next = request.url, let follows else {
            completionHandler(request)
            return
        }
        completionHandler(follows(next) ? request : nil)
    }
}

extension MockRegistry.Core {
    /// Notes what the real network answered a request passed to it, and tells the registry's
    /// backing when it sent the request there (a recording).
    fileprivate func passedToNetwork(
        _ request: URLRequest, number: Int, result: Result<(HTTPURLResponse, Data), any Error>, started: Date,
        backing: (any RegistryBacking)?
    ) {
        switch result {
        case .success(let (response, data)): settle(number, .response(response, data, delay: 0))
        case .failure(let error): settle(number, .failure(MockRegistry.describe(error)))
        }
        guard let backing, backing.sendsUnmatchedToNetwork,
            let message = backing.networkAnswered(request, result: result, started: started)
        else { return }
        record(MockFailure(message: message, location: nil))
    }
}
