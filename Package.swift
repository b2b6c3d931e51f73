// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "MockNetwork",
    // macOS 13 / iOS 16 / tvOS 16: `Duration` is in the API. `URL(string:)` before macOS 14 / iOS 17
    // returns nil for spaces, non-ASCII and stray `%`, which handlers' URLs and recorded archives hold:
    // MockNetwork encodes such text itself first (`URLText`), as those versions do. Not watchOS: it
    // loads no custom URLProtocol (the core says so with a build error there).
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .visionOS(.v1)],
    products: [
        .library(name: "MockNetwork", targets: ["MockNetwork"]),
        .library(name: "MockNetworkTesting", targets: ["MockNetworkTesting"]),
        .library(name: "MockNetworkServer", targets: ["MockNetworkServer"]),
        .library(name: "MockNetworkGraphQL", targets: ["MockNetworkGraphQL"]),
        .library(name: "MockNetworkArchives", targets: ["MockNetworkArchives"]),
        .library(name: "MockNetworkApp", targets: ["MockNetworkApp"]),
    ],
    traits: [
        .trait(
            name: "Archives",
            description: "MockNetworkTesting's trait and base class replay and record HAR archives and attach a "
                + "failing test's traffic (MockNetworkArchives, MockNetworkGraphQL). Without it, a test target that "
                + "uses MockNetworkTesting builds the core and the testing module only."),
        .default(enabledTraits: ["Archives"]),
    ],
    targets: [
        .target(name: "MockNetwork"),
        // GraphQL: operations, matching them, answers, batches, persisted queries.
        .target(name: "MockNetworkGraphQL", dependencies: ["MockNetwork"]),
        // HAR archives: replay, record, export, redaction, a failing test's traffic.
        .target(name: "MockNetworkArchives", dependencies: ["MockNetwork", "MockNetworkGraphQL"]),
        // The trait and the base class, which replay and record archives and attach a failing test's traffic.
        .target(
            name: "MockNetworkTesting",
            dependencies: [
                "MockNetwork",
                .target(name: "MockNetworkGraphQL", condition: .when(traits: ["Archives"])),
                .target(name: "MockNetworkArchives", condition: .when(traits: ["Archives"])),
            ]),
        // The app's side of UI tests: launch-environment scenarios, stubs, archives, forwarding to a server.
        .target(name: "MockNetworkApp", dependencies: ["MockNetwork", "MockNetworkGraphQL", "MockNetworkArchives"]),
        // The HTTP door: a loopback server on the platform's sockets and Dispatch, the core its only dependency.
        .target(name: "MockNetworkServer", dependencies: ["MockNetwork"]),
        .executableTarget(
            name: "MockNetworkBenchmark", dependencies: ["MockNetwork", "MockNetworkArchives", "MockNetworkServer"]),
        .testTarget(
            name: "MockNetworkTests",
            dependencies: [
                "MockNetwork", "MockNetworkTesting", "MockNetworkServer", "MockNetworkGraphQL", "MockNetworkArchives",
                "MockNetworkApp",
            ],
            // Archives next to the tests are read from the source tree, as users' recordings are.
            exclude: ["HAR/Archives", "SwiftTesting/Archives"], resources: [.copy("Fixtures")]),
        .target(name: "DogAPI", path: "Examples/DogAPI/Sources/DogAPI"),
        .testTarget(
            name: "DogAPITests", dependencies: ["DogAPI", "MockNetworkTesting"],
            path: "Examples/DogAPI/Tests/DogAPITests", exclude: ["Archives"]),
        .target(name: "CatBreeds", path: "Examples/CatBreeds/Sources/CatBreeds"),
        .testTarget(
            name: "CatBreedsTests", dependencies: ["CatBreeds", "MockNetworkTesting"],
            path: "Examples/CatBreeds/Tests/CatBreedsTests", resources: [.copy("Fixtures")]),
        .target(name: "StreamingChat", path: "Examples/StreamingChat/Sources/StreamingChat"),
        .testTarget(
            name: "StreamingChatTests", dependencies: ["StreamingChat", "MockNetworkTesting"],
            path: "Examples/StreamingChat/Tests/StreamingChatTests"),
        .target(name: "GraphQLClient", path: "Examples/GraphQLClient/Sources/GraphQLClient"),
        .testTarget(
            name: "GraphQLClientTests", dependencies: ["GraphQLClient", "MockNetworkTesting"],
            path: "Examples/GraphQLClient/Tests/GraphQLClientTests"),
        .executableTarget(
            name: "CatBreedsDemo", dependencies: ["CatBreeds", "MockNetwork", "MockNetworkApp"],
            path: "Examples/CatBreeds/Sources/CatBreedsDemo", resources: [.copy("Fixtures")]),
    ]
)
