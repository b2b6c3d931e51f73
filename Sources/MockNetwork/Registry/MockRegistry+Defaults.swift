import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Defaults: handlers every test of a suite starts with, which a test's own override.
extension MockRegistry {
    /// Registers what `register` registers as this registry's defaults: answers a test starts
    /// with, which any handler registered outside `register` overrides, however either matches.
    ///
    /// ```swift
    /// mocks.registerDefaults { mocks in
    ///     mocks.register(.host("api.example.com")) { _ in .json(#"{"beta": false}"#) }
    /// }
    /// // This test's own answer wins for /flags; every other request gets the default.
    /// mocks.register("https://api.example.com/flags") { _ in .json(#"{"beta": true}"#) }
    /// ```
    ///
    /// A request is answered by the test's own handlers when one matches, else by an entry of an
    /// archive the registry replays, else by a default. Among defaults, the usual rules pick: the
    /// most specific, the latest among equals. A default no request calls never fails
    /// ``requiresEveryHandlerCalled``. `MockNetworkTestCase.registerDefaults(in:)` and
    /// `.mockNetwork(defaults:)` call this for every test.
    ///
    /// - Parameter register: registers the defaults on the registry it is given (this one).
    public func registerDefaults(_ register: (MockRegistry) throws -> Void) rethrows {
        try Self.$defaultsOf.withValue(ObjectIdentifier(core)) { try register(self) }
    }

    /// The registry whose `registerDefaults` is running on this task or thread: its registrations
    /// there are defaults. Task-local, so a registration elsewhere at the same time is not.
    @TaskLocal static var defaultsOf: ObjectIdentifier?
}
