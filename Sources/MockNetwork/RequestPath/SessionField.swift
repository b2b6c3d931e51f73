#if canImport(FoundationNetworking)
    @_spi(Reflection) import Swift
    import Foundation
    import FoundationNetworking

    /// Where swift-corelibs-foundation stores a task's session: `URLSessionTask.session`, an
    /// `URLSessionProtocol!` (a class-bound protocol, so its first word is the session object), at
    /// the byte offset Swift's runtime gives for the field.
    ///
    /// Reading memory at an offset is only as sound as the layout it assumes, so it is checked:
    /// the field must have that name and type, and the first task read must give the same session
    /// as the search by `Mirror` (``TaskInternals/sessionBySearch(of:)``). Anything else (another
    /// Foundation) leaves every read to the search. The check cannot make a session and task of
    /// its own: the first read happens inside `startLoading`, where making one would wait for the
    /// queue the caller holds. The read has the search's exclusion: the caller holds the task, whose
    /// session is set when it is made and replaced only after it ends.
    enum SessionField {
        /// The field's byte offset in a task, if it has the expected name and type.
        private static let offset: Int? = {
            var offset: Int?
            // `.classType` (bit 0), spelled by value: the stdlib declares it a `static var`, which
            // Swift 6 will not read from here.
            let classType = _EachFieldOptions(rawValue: 1 << 0)
            _ = _forEachField(of: URLSessionTask.self, options: classType) { name, fieldOffset, type, _ in
                guard String(cString: name) == "session" else { return true }
                if String(describing: type) == "Optional<URLSessionProtocol>" { offset = fieldOffset }
                return false
            }
            return offset
        }()

        /// Whether reads at ``offset`` agreed with the search; `nil` until the first task.
        private static let agrees = Locked(Bool?.none)

        /// The session `task` belongs to: read at the field's offset once that was checked, and
        /// otherwise by `search`.
        static func session(of task: URLSessionTask, search: (URLSessionTask) -> URLSession?) -> URLSession? {
            guard let offset else { return search(task) }
            switch agrees.withLock({ $0 }) {
            case true?: return read(task, at: offset)
            case false?: return search(task)
            case nil:
                let searched = search(task)
                let read = read(task, at: offset)
                agrees.withLock { $0 = searched != nil && read === searched }
                return searched
            }
        }

        private static func read(_ task: URLSessionTask, at offset: Int) -> URLSession? {
            withExtendedLifetime(task) {
                let base = UnsafeRawPointer(Unmanaged.passUnretained(task).toOpaque())
                guard let object = base.load(fromByteOffset: offset, as: UnsafeRawPointer?.self) else { return nil }
                return Unmanaged<AnyObject>.fromOpaque(object).takeUnretainedValue() as? URLSession
            }
        }
    }
#endif
