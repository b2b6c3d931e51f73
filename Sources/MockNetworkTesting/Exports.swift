// `import MockNetworkTesting` is all a test file needs: Foundation (and on Linux FoundationNetworking,
// where `URLRequest`, `HTTPURLResponse` and `URLSession` live), `MockRegistry`, `MockResponse` and
// `RequestMatch` come with it; with the package's `Archives` trait (on by default) also what the
// trait and the base class use besides: `HTTPArchive` (MockNetworkArchives) and `GraphQLOperation`
// (MockNetworkGraphQL), which archives read.
@_exported import Foundation
@_exported import MockNetwork

#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

#if Archives
    @_exported import MockNetworkArchives
    @_exported import MockNetworkGraphQL
#endif
