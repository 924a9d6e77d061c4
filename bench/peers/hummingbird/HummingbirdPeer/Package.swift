// swift-tools-version:6.0
import PackageDescription

/// Benchmark peer only: a minimal Hummingbird 2 app serving the same JSON body as Livery and nginx.
/// A separate package with its own `.build`, never a dependency of the Livery product.
let package = Package(
    name: "HummingbirdPeer",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .executableTarget(name: "HummingbirdPeer", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
