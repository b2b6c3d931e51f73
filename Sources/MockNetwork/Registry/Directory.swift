import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension MockRegistry {
    /// Which core each protocol class routes to.
    ///
    /// Every registry has a protocol class, and so does every configuration it hands out (so that a
    /// request knows which configuration's timeouts apply). A class's core stays while its registry
    /// or the registry's own session is alive; after that, requests fail with "registry was released".
    enum Directory {
        /// What a protocol class routes to. `@unchecked Sendable`: `configuration` is only read
        /// (its timeouts), and only after a session was made from it.
        struct Destination: @unchecked Sendable {
            let core: Core
            weak var registry: MockRegistry?
            weak var session: URLSession?
            let configuration: URLSessionConfiguration?

            var isAlive: Bool { registry != nil || session != nil }
        }

        struct Table: Sendable {
            var count: UInt64 = 0
            var destinations: [ObjectIdentifier: Destination] = [:]
            /// When the table next looks for cores whose registry and session are both gone.
            var sweepAt = 64
        }

        static let table = Locked(Table())

        static func makeClass() -> MockURLProtocol.Type {
            table.withLock { table in
                table.count += 1
                return ProtocolClasses.make(number: table.count)
            }
        }

        static func add(_ protocolClass: AnyClass, for registry: MockRegistry, configuration: URLSessionConfiguration) {
            let destination = Destination(
                core: registry.core, registry: registry, session: registry.session, configuration: configuration)
            let full = table.withLock { table in
                table.destinations[ObjectIdentifier(protocolClass)] = destination
                return table.destinations.count >= table.sweepAt
            }
            if full { sweep() }
        }

        /// The core a protocol class routes to, while its registry or session is alive, and the
        /// configuration the class was made for.
        static func destination(of protocolClass: AnyClass) -> (Core, URLSessionConfiguration?)? {
            // The process-wide registry is made when first read; a request may come before that.
            if protocolClass == MockURLProtocol.self { _ = MockURLProtocol.registry }
            let key = ObjectIdentifier(protocolClass)
            return table.withLock { table in
                guard let destination = table.destinations[key], destination.isAlive else { return nil }
                return (destination.core, destination.configuration)
            }
        }

        /// Sweeps once `session` is gone: a registry's session outlives its `deinit` by a moment (it is
        /// released after the body runs), or for longer when something else holds it. Looks again
        /// with growing pauses, for about a quarter of a second; after that the next registry made
        /// sweeps (a session kept that long goes on answering meanwhile, as it should).
        static func sweep(whenGone session: URLSession, attempt: Int = 0) {
            let watched = Watched(session: session)
            let pause = attempt == 0 ? 0 : 1 << min(attempt, 6)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(pause)) {
                if let session = watched.session {
                    if attempt < 8 { sweep(whenGone: session, attempt: attempt + 1) }
                    return
                }
                sweep()
            }
        }

        private struct Watched: Sendable {
            weak var session: URLSession?
        }

        /// Forgets the cores whose registry and session are both gone, failing their waiting requests.
        static func sweep() {
            let released: [Core] = table.withLock { table in
                var released: [ObjectIdentifier: Core] = [:]
                for (key, destination) in table.destinations where !destination.isAlive {
                    table.destinations[key] = nil
                    released[ObjectIdentifier(destination.core)] = destination.core
                }
                table.sweepAt = max(64, 2 * table.destinations.count)
                return Array(released.values)
            }
            for core in released { core.releaseWaiting() }
        }
    }
}
