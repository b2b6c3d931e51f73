#if canImport(XCTest)
    import MockNetwork
    import XCTest

    /// Every form of `register` on the base class, by the mechanism the registry has them: the base
    /// class is a `MockRegistering` whose registrations go to ``MockNetworkTestCase/mocks``, so
    /// `register(…)` in a test reads as `mocks.register(…)` and answers this test's requests.
    extension MockNetworkTestCase: MockRegistering {
        /// This test's registry, ``mocks``: where `register(…)` on the test goes.
        public var mockRegistry: MockRegistry { mocks }
    }
#endif
