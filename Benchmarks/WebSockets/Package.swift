// swift-tools-version: 6.1
import PackageDescription

// Round trips of WebSocket echo servers, measured by one blocking client on POSIX sockets:
// hummingbird-websocket's echo beside MockServer's. A package of its own, so the main package
// stays free of dependencies; it is run by hand (README.md), not in CI.
let package = Package(
    name: "WebSocketBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "MockNetwork", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        .executableTarget(
            name: "WebSocketBenchmark",
            dependencies: [
                .product(name: "MockNetworkServer", package: "MockNetwork"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ])
    ]
)
