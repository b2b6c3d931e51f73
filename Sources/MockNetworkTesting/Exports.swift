// `import MockNetworkTesting` is all a test file needs: `MockRegistry`, `MockResponse`,
// `RequestMatch` come with it, and `HTTPArchive` with the archives the trait and the base class use.
@_exported import MockNetwork
@_exported import MockNetworkArchives
