// `import MockNetworkTesting` is all a test file needs: `MockRegistry`, `MockResponse` and
// `RequestMatch` come with it, and what the trait and the base class use besides: `HTTPArchive`
// (MockNetworkArchives) and `GraphQLOperation` (MockNetworkGraphQL), which archives read.
@_exported import MockNetwork
@_exported import MockNetworkArchives
@_exported import MockNetworkGraphQL
