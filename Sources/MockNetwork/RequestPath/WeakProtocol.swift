/// A weak reference to a protocol instance, for the closures that end its wait on other threads.
///
/// `@unchecked Sendable` because `URLProtocol` is not `Sendable`; what those threads do with the
/// instance is safe: they read and write its exchange under its lock, on Linux deliver only while
/// holding Foundation's queue (or call `task?.resume()`, which locks inside), and on Apple platforms
/// hand delivery to the client's thread.
struct WeakProtocol: @unchecked Sendable {
    weak var value: MockURLProtocol?
    init(_ value: MockURLProtocol) { self.value = value }
}
