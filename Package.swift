// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "MockNetwork",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "MockNetwork", targets: ["MockNetwork"]),
        .library(name: "MockNetworkTesting", targets: ["MockNetworkTesting"]),
    ],
    targets: [
        .target(name: "MockNetwork"),
        .target(name: "MockNetworkTesting", dependencies: ["MockNetwork"]),
        .testTarget(name: "MockNetworkTests", dependencies: ["MockNetwork", "MockNetworkTesting"]),
    ]
)
