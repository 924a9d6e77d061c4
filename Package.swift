// swift-tools-version:6.0
import PackageDescription

/// Livery: a holiday skin package server.
///
/// Targets have one job each and depend one way:
/// system shims → SystemCalls and the portable LiveryJSON, LiveryProtocol, ZipReading, SkinModel (on LiveryJSON) →
/// LiveryCrypto / LiveryHTTP / SkinDirectory / ZipArchive / SkinStore / PostgresClient → SkinPackage → SkinServing →
/// LiveryServer → livery (LiverySetup beside it). LiveryCatalog, the phone's side of the catalog protocol
/// (docs/PROTOCOL.md), is portable too: LiveryJSON and swift-crypto only.
/// LiveryJSON, LiveryProtocol, ZipReading and SkinModel are portable (they build for iOS and macOS: Foundation and
/// zlib at most) because the client SDK shares them with the server; they must stay so.
/// Files and sockets go through SystemCalls (one error type, one crash-safe write); the direct C calls that remain
/// elsewhere are named in docs/ARCHITECTURE.md (SystemCalls).
/// The HTTP layer knows nothing about skins; the model, archive, packaging, store and serving-core targets never import
/// HTTP. LiveryServer holds only the HTTP adapters of the serving core.
let package = Package(
    name: "Livery",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .executable(name: "livery", targets: ["livery"]),
        // The client SDK apps add with the Swift package manager (docs/CLIENT.md).
        .library(name: "LiveryKit", targets: ["LiveryKit"]),
        // One app install on the command line, built on LiveryKit.
        .executable(name: "livery-phone", targets: ["livery-phone"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // CryptoKit's API on every platform: SHA-256 and P-256 for LiveryKit and LiveryCatalog (the server keeps OpenSSL).
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3")
    ],
    targets: [
        // System libraries.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        // Linux calls SystemCalls needs that Swift's Glibc module does not export (accept4).
        .target(name: "CSystemCalls"),

        // The one system-call layer for files and sockets (EINTR retried, EAGAIN a value, EBADF a bug, one
        // SystemCallError), the O_NOFOLLOW walk beneath a trusted folder and the one crash-safe write
        // (DurableFile). Depends on nothing of Livery's but its C shim.
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),

        // JSON, once: the value (JSONValue, order-keeping objects, numbers as their text, pointers), the hostile-first
        // parser (strict RFC 8259, duplicate keys refused, depth-limited, line and column of the first fault) and the
        // one writer (JSONWriter's escaping rule). Portable (server and LiveryKit): imports nothing, Foundation at most.
        .target(name: "LiveryJSON"),

        // What the server and the SDK both speak, apart from JSON: base64, hex, plain names (PlainName, KeyID), the
        // Livery-Signature header, the public key file `livery keys create` prints, and KeyRing, generic over the key
        // type (OpenSSL's on the server, swift-crypto's in the SDK). Portable: imports nothing.
        .target(name: "LiveryProtocol"),

        // Hashing, constant-time comparison, randomness, and answer signing (private and public keys, a caching
        // signer) on OpenSSL's EVP API; PublicKeyRing is LiveryProtocol's KeyRing of OpenSSL keys.
        .target(name: "LiveryCrypto", dependencies: ["COpenSSL", "LiveryProtocol", "SystemCalls"]),

        // Linux calls (epoll, eventfd) that Swift's Glibc module does not export, for LiveryHTTP.
        .target(name: "CLiveryHTTP"),

        // HTTP/1.1 server (and HTTPS, on OpenSSL) on BSD sockets, epoll and Dispatch. Knows nothing of skins.
        // Release builds skip the run-time exclusivity checks on its per-connection state (a few percent of a
        // poll's CPU); debug builds, which the tests run, keep them.
        .target(
            name: "LiveryHTTP",
            dependencies: [
                "CLiveryHTTP", "COpenSSL", "LiveryJSON", "SystemCalls", .product(name: "Logging", package: "swift-log")
            ],
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),

        // skin.json / config.json values, color and image parsing, validation, identifier fallback, variants, and a
        // built package's configs read back (PackageConfig). Pure and portable (server and LiveryKit): LiveryJSON and
        // Foundation only; skins reach it through a SkinSource.
        .target(name: "SkinModel", dependencies: ["LiveryJSON"]),

        // A skin folder on disk as a SkinSource (DirectorySkinSource: lstat listing, O_NOFOLLOW reads beneath the
        // folder), for the CLI, the importer and tests. Server-side: it walks the disk through SystemCalls.
        .target(name: "SkinDirectory", dependencies: ["SkinModel", "SystemCalls"]),

        // The hostile-first zip reader (bounds, names, links, duplicates, bombs; one verified file at a time after the
        // whole structure is checked) and the zip format's constants and CRC-32. Portable (server uploads and
        // LiveryKit): zlib and Foundation only.
        .target(name: "ZipReading", dependencies: ["CZlib"]),

        // The deterministic zip writer on zlib (packages, `livery push`). No HTTP, no skins.
        .target(
            name: "ZipArchive", dependencies: ["CZlib", "ZipReading", "LiveryCrypto", "LiveryProtocol", "SystemCalls"]),

        // The catalog document of `GET /api/v1/catalog` as a phone reads it (parsed hostile-first) and
        // `CatalogDecision`, the pure decision a phone makes from it (docs/PROTOCOL.md). Portable: Foundation,
        // the JSON parser and swift-crypto's SHA-256 only, so the SDK builds it for iOS and macOS too.
        .target(name: "LiveryCatalog", dependencies: ["LiveryJSON", .product(name: "Crypto", package: "swift-crypto")]),

        // Durable state: the SkinStore role (snapshot, revision-checked changes, content-addressed files, audit log,
        // kill switches; version metadata and release plans as typed values) and FileSkinStore, its implementation
        // under the data directory (blobs, state.json, audit.log).
        .target(
            name: "SkinStore",
            dependencies: ["LiveryCrypto", "LiveryProtocol", "LiveryJSON", "SkinModel", "SystemCalls"]),

        // PostgreSQL through libpq: connections on threads of their own, parameterized queries, typed SQLSTATE
        // errors, transactions, advisory locks, LISTEN/NOTIFY, versioned migrations. Knows nothing of skins or HTTP.
        .target(name: "PostgresClient", dependencies: ["CLibPQ", "LiveryCrypto", "LiveryProtocol", "SystemCalls"]),

        // The SkinStore role in PostgreSQL (schema migrations, one transaction per change, NOTIFY to other replicas,
        // a local cache of verified blobs). Never HTTP.
        .target(name: "PostgresSkinStore", dependencies: ["SkinStore", "SkinModel", "PostgresClient", "LiveryCrypto"]),

        // Turns a validated skin and a variant into a deterministic zip package.
        .target(
            name: "SkinPackage",
            dependencies: [
                "SkinModel", "ZipArchive", "ZipReading", "LiveryCrypto", "LiveryProtocol", "SystemCalls"
            ]),

        // The ops console's static files (www/), compiled into the binary by SwiftPM so it needs no files next to it
        // (copied resources would need a bundle folder beside the binary). The byte-array literals cost about 20 s
        // of CPU when www/ changes; in exchange no generated copy of www/ is kept in the repository.
        .target(name: "LiveryConsole", resources: [.embedInCode("www")]),

        // The serving core, without HTTP: the catalog (what is served), building it from the store and publishing it
        // to a closure, request values, resolution, rollout buckets, answer bodies, the package cache, the importer,
        // upload reading, every write as a use case (Changes: rules decided in one store change, then publish,
        // count, log; one ChangeError), every admin read as a query (Queries) and the admin answers' bodies
        // (AdminJSON). Never imports LiveryHTTP.
        .target(
            name: "SkinServing",
            dependencies: [
                "SkinModel", "SkinDirectory", "SkinPackage", "SkinStore", "LiveryCrypto", "LiveryProtocol",
                "ZipArchive",
                "ZipReading", "LiveryJSON",
                "SystemCalls", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics")
            ]),

        // How a Livery process is set up: the settings of `livery serve` (flag > environment > default, checked) and
        // the log handler (text or JSON lines). No HTTP, no skins.
        .target(
            name: "LiverySetup",
            dependencies: ["LiveryJSON", "SystemCalls", .product(name: "Logging", package: "swift-log")]),

        // A small blocking HTTP/1.1 client (http and https with the system's CAs or a private CA file, on
        // SystemCalls' ClientSocket and OpenSSL): the CLI's ops commands and the guard's webhook.
        .target(name: "LiveryHTTPClient", dependencies: ["COpenSSL", "SystemCalls"]),

        // The HTTP adapters of the serving core: client routes, the package responder, admin routes and auth, the one
        // mapping of errors to HTTP (APIError), metrics; LiveryService assembles them.
        .target(
            name: "LiveryServer",
            dependencies: [
                "SkinServing", "LiveryHTTP", "LiveryHTTPClient", "LiveryConsole", "SkinModel", "SkinPackage",
                "LiveryCrypto", "LiveryProtocol", "SkinStore",
                "ZipArchive", "ZipReading", "LiveryJSON", "SystemCalls",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus")
            ]),

        // The thin executable: configuration, logging bootstrap, signals, subcommands.
        .executableTarget(
            name: "livery",
            dependencies: [
                "LiveryServer", "LiverySetup", "LiveryHTTP", "LiveryHTTPClient", "LiveryJSON", "SkinModel",
                "SkinDirectory", "SkinPackage", "ZipArchive", "ZipReading", "LiveryCrypto", "LiveryProtocol",
                "PostgresClient", "PostgresSkinStore", "SkinStore", "SkinServing", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics")
            ]),

        // The client SDK: the catalog decided on the device (or a poll), verify, stream, unpack hostile-first, swap
        // atomically, read the skin, revert a skin that crashed the app. Portable targets and swift-crypto only
        // (.ci/check-sdk-graph keeps it so).
        .target(
            name: "LiveryKit",
            dependencies: [
                "LiveryJSON", "LiveryProtocol", "ZipReading", "SkinModel", "LiveryCatalog",
                .product(name: "Crypto", package: "swift-crypto")
            ],
            resources: [.copy("PrivacyInfo.xcprivacy")]),

        // One app install on the command line (docs/CLIENT.md): what a phone sees, as one JSON line.
        .executableTarget(
            name: "livery-phone",
            dependencies: [
                "LiveryKit", "LiveryJSON", "LiveryProtocol", "SkinModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ],
            path: "Examples/livery-phone"),

        // Benchmark and test driver for the zip writer (bench/zip/run.sh; the cross-process determinism test).
        .executableTarget(name: "zip-bench", dependencies: ["ZipArchive", "ZipReading"], path: "bench/zip/zip-bench"),

        // Helpers every test target may share: scratch folders, SplitMix64, RawZip, running child processes,
        // blocking work off the cooperative pool, capturing log records. Never shipped; depends on nothing of Livery's.
        .target(
            name: "TestSupport", dependencies: ["CZlib", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport"),
        .testTarget(
            name: "TestSupportTests", dependencies: ["TestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "LiveryJSONTests", dependencies: ["LiveryJSON"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls", "TestSupport"]),
        // Child process for SystemCallsTests' EBADF checks (a precondition failure stops the process). Not shipped.
        .executableTarget(name: "syscalls-probe", dependencies: ["SystemCalls"], path: "Tests/SystemCallsProbe"),
        .testTarget(name: "LiveryProtocolTests", dependencies: ["LiveryProtocol"]),
        .testTarget(name: "LiveryCryptoTests", dependencies: ["LiveryCrypto", "LiveryProtocol", "TestSupport"]),
        .testTarget(
            name: "LiveryHTTPTests",
            dependencies: [
                "LiveryHTTP", "LiverySetup", "HTTPTestSupport", "TestSupport",
                .product(name: "Logging", package: "swift-log")
            ]),
        .testTarget(name: "SkinModelTests", dependencies: ["SkinModel", "SkinDirectory", "LiveryJSON", "TestSupport"]),
        .testTarget(name: "ZipReadingTests", dependencies: ["ZipReading", "TestSupport"]),
        .testTarget(name: "ZipArchiveTests", dependencies: ["ZipArchive", "ZipReading", "LiveryCrypto", "TestSupport"]),
        .testTarget(
            name: "SkinPackageTests",
            dependencies: [
                "SkinPackage", "SkinModel", "SkinDirectory", "ZipArchive", "ZipReading", "TestSupport"
            ]),
        // How tests reach HTTP routes: a raw-socket HTTP/1.1 client (127.0.0.1 only), the one in-process test server
        // (`TestServer`), and `TestEndpoint`, which answers the same requests in memory or over that server. Never
        // shipped.
        .target(
            name: "HTTPTestSupport",
            dependencies: ["LiveryHTTP", "TestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/HTTPTestSupport"),
        .testTarget(name: "LiveryCatalogTests", dependencies: ["LiveryCatalog", "TestSupport"]),
        // The serving core without HTTP; the change use cases run on the file store and on a real PostgreSQL.
        .testTarget(
            name: "SkinServingTests",
            dependencies: [
                "SkinServing", "SkinModel", "SkinPackage", "SkinStore", "LiveryCrypto", "LiveryJSON", "TestSupport",
                "PostgresSkinStore", "PostgresClient", "PostgresTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics")
            ]),
        .testTarget(
            name: "LiverySetupTests",
            dependencies: [
                "LiverySetup", "TestSupport", .product(name: "Logging", package: "swift-log")
            ]),
        .testTarget(
            name: "LiveryServerTests",
            dependencies: [
                "LiveryServer", "SkinServing", "LiverySetup", "LiveryConsole", "LiveryHTTP", "SkinModel",
                "SkinDirectory", "SkinPackage", "HTTPTestSupport", "TestSupport", "LiveryCrypto",
                "LiveryProtocol", "SkinStore", "ZipArchive", "ZipReading", "LiveryJSON", "LiveryCatalog",
                .product(name: "MetricsTestKit", package: "swift-metrics")
            ]),
        // A real PostgreSQL server per suite or test (initdb as an unprivileged user, Unix socket only). Never shipped.
        .target(name: "PostgresTestSupport", dependencies: ["TestSupport"], path: "Tests/PostgresTestSupport"),
        .testTarget(
            name: "PostgresClientTests", dependencies: ["PostgresClient", "PostgresTestSupport", "TestSupport"]),
        // The checks every `SkinStore` implementation must pass, run by each implementation's tests with a factory of
        // its stores (FileSkinStore's in SkinStoreTests; PostgreSQL's next). Imports Testing. Never shipped.
        .target(
            name: "SkinStoreConformance", dependencies: ["SkinStore", "SkinModel", "LiveryJSON", "LiveryCrypto"],
            path: "Tests/SkinStoreConformance"),
        .testTarget(
            name: "SkinStoreTests",
            dependencies: [
                "SkinStore", "SkinStoreConformance", "SkinModel", "LiveryJSON", "LiveryCrypto", "TestSupport"
            ]),
        .testTarget(
            name: "PostgresSkinStoreTests",
            dependencies: [
                "PostgresSkinStore", "SkinStore", "SkinStoreConformance", "PostgresClient", "PostgresTestSupport",
                "TestSupport",
                "SkinServing", "SkinModel", "LiveryJSON", .product(name: "Logging", package: "swift-log")
            ]),
        // Child process for SkinStoreTests' crash-safety test (killed with SIGKILL mid-change). Not shipped.
        .executableTarget(
            name: "store-torture", dependencies: ["SkinStore", "SkinModel", "TestSupport"], path: "Tests/StoreTorture"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "LiveryCrypto", "LiveryProtocol", "HTTPTestSupport", "TestSupport", "ZipArchive", "ZipReading",
                "PostgresTestSupport",
                "SkinStore", "SkinModel"
            ]),
        // LiveryKit and livery-phone against the real `livery serve` (and a tampering proxy on 127.0.0.1).
        .testTarget(
            name: "LiveryKitTests",
            dependencies: [
                "LiveryKit", "LiveryJSON", "SkinModel", "TestSupport", .product(name: "Crypto", package: "swift-crypto")
            ])
    ]
)
