// swift-tools-version: 6.1
import PackageDescription

// A server-side app's clients of a todo service, tested against a MockNetwork registry served over
// HTTP on 127.0.0.1: `TodoClient` calls AsyncHTTPClient itself, `TodoAPIClient` goes through the
// client swift-openapi-generator made from `openapi.yaml`, on its AsyncHTTPClient transport; and
// WebSocketKit, a SwiftNIO WebSocket client, against the registry's WebSocket handlers. A package
// of its own, so the main package stays free of dependencies; CI builds and tests it.
let package = Package(
    name: "ServerSide",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .visionOS(.v1)],
    products: [
        .library(name: "Todos", targets: ["Todos"])
    ],
    dependencies: [
        .package(name: "MockNetwork", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/vapor/websocket-kit", from: "2.16.2"),
    ],
    targets: [
        // Generated/ is made once from openapi.yaml and committed (README.md says how to make it
        // again), so a build runs no generator.
        .target(
            name: "Todos",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ],
            exclude: ["openapi.yaml", "openapi-generator-config.yaml"]),
        .testTarget(
            name: "TodosTests",
            dependencies: [
                "Todos",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MockNetworkServer", package: "MockNetwork"),
                .product(name: "MockNetworkTesting", package: "MockNetwork"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ]),
    ]
)
