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
            let start = this.value?.exchange.withLock { exchange in
                guard exchange.isWorking else { return false }
                exchange.passthrough = task
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
}
