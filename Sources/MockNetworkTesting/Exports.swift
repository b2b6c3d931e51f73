// `import MockNetworkTesting` is all a test file needs: `MockRegistry`, `MockResponse`,
// `RequestMatch` and `HTTPArchive` come with it.
@_exported import MockNetwork
