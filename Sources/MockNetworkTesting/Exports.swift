// `import MockNetworkTesting` is all a test file needs: `MockRegistry`, `MockResponse` and
// `RequestMatch` come with it; with the package's `Archives` trait (on by default) also what the
// trait and the base class use besides: `HTTPArchive` (MockNetworkArchives) and `GraphQLOperation`
// (MockNetworkGraphQL), which archives read.
@_exported import MockNetwork

#if Archives
    @_exported import MockNetworkArchives
    @_exported import MockNetworkGraphQL
#endif
