import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What the protocol needs to know about the task it serves and that no public API tells it.
///
/// On Linux (swift-corelibs-foundation) these are read from Foundation's stored properties with
/// `Mirror`, and only when needed (a chunked answer, a Basic challenge), because reading costs about
/// 10 µs. Everything here falls back to the safe answer when a property is not where it was measured.
enum TaskInternals {
    #if canImport(FoundationNetworking)
        /// Whether every `didLoad` call reaches the caller: true only for a task whose events go to
        /// the session's `URLSessionDataDelegate` (`dataTask(with:)` without a completion handler).
        ///
        /// `task.delegate` is no guide: inside `startLoading` it is the session's delegate for
        /// `data(for:)` and completion-handler tasks too, and those keep only the last `didLoad`.
        /// What decides is the behaviour the session filed the task under: `callDelegate`.
        static func deliversEveryChunk(_ task: URLSessionTask?) -> Bool {
            guard let task, task is URLSessionDataTask, let session = session(of: task),
                session.delegate is URLSessionDataDelegate
            else { return false }
            return callsDelegate(task)
        }

        /// Whether the session filed `task` under `callDelegate`: its events go to the session's
        /// delegate (no completion handler, not the async forms).
        static func callsDelegate(_ task: URLSessionTask) -> Bool {
            guard let session = session(of: task),
                let registry = child(of: session, named: "taskRegistry"),
                let behaviours = child(of: registry, named: "behaviours") as? [Int: Any],
                let behaviour = behaviours[task.taskIdentifier]
            else { return false }
            // `callDelegate` is the one behaviour without a payload (a completion handler).
            return Mirror(reflecting: behaviour).children.isEmpty
                && String(describing: behaviour).hasSuffix("callDelegate")
        }

        /// The session a task belongs to: its stored `session` (an implicitly unwrapped optional).
        ///
        /// Every request asks (its session's settings apply). A search by `Mirror` builds every stored
        /// property before `session`, about 90,000 instructions a request; so the property is read
        /// where Swift's runtime says it is stored (``SessionField``), a few hundred, once a read was
        /// checked against the search. The search stays the fallback.
        static func session(of task: URLSessionTask) -> URLSession? {
            SessionField.session(of: task, search: sessionBySearch(of:))
        }

        /// `session(of:)` through `Mirror`, by name.
        static func sessionBySearch(of task: URLSessionTask) -> URLSession? {
            guard var value = child(of: task, named: "session") else { return nil }
            while Mirror(reflecting: value).displayStyle == .optional {
                guard let wrapped = Mirror(reflecting: value).children.first?.value else { return nil }
                value = wrapped
            }
            return value as? URLSession
        }

        /// The stored property `name` of `value` or of one of its superclasses.
        static func child(of value: Any, named name: String) -> Any? {
            var mirror: Mirror? = Mirror(reflecting: value)
            while let current = mirror {
                if let found = current.children.first(where: { $0.label == name }) { return found.value }
                mirror = current.superclassMirror
            }
            return nil
        }
    #else
        /// The session a task belongs to: Apple's tasks answer `session` (not public API, so asked
        /// only when the task responds to it, and `nil` otherwise).
        static func session(of task: URLSessionTask) -> URLSession? {
            guard task.responds(to: NSSelectorFromString("session")) else { return nil }
            return task.value(forKey: "session") as? URLSession
        }
    #endif
}
