// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Pushgate",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "PushgateCore", targets: ["PushgateCore"]),
        .library(name: "PushgateHTTP", targets: ["PushgateHTTP"]),
        .library(name: "PushgateProviders", targets: ["PushgateProviders"]),
        .executable(name: "pushgate", targets: ["pushgate"]),
    ],
    targets: [
        // System libraries (Debian -dev packages installed by Scripts/bootstrap).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),

        // Libraries, in dependency order.
        .target(name: "PushgateCore", dependencies: ["COpenSSL"]),
        .target(name: "PushgateHTTP", dependencies: ["PushgateCore", "COpenSSL", "CNGHTTP2"]),
        .target(name: "PushgateProviders", dependencies: ["PushgateCore", "PushgateHTTP"]),
        .target(name: "PushgateRelay", dependencies: ["PushgateCore"]),
        .target(name: "PushgateTesting", dependencies: ["PushgateCore", "PushgateHTTP", "COpenSSL", "CNGHTTP2"]),

        // Executables: flag parsing only, logic lives in the libraries.
        .executableTarget(name: "pushgate", dependencies: ["PushgateCore", "PushgateTesting"]),

        // Tests.
        .testTarget(name: "PushgateCoreTests", dependencies: ["PushgateCore"]),
        .testTarget(name: "PushgateRelayTests", dependencies: ["PushgateRelay"]),
        .testTarget(name: "PushgateTestingTests", dependencies: ["PushgateTesting", "PushgateHTTP", "PushgateCore", "COpenSSL"]),
        .testTarget(name: "pushgateTests", dependencies: ["pushgate", "PushgateCore"]),
        .testTarget(name: "PushgateHTTPTests", dependencies: ["PushgateHTTP", "PushgateTesting", "PushgateCore"]),
        .testTarget(name: "PushgateProvidersTests", dependencies: ["PushgateProviders", "PushgateHTTP", "PushgateTesting", "PushgateCore"]),
    ],
    swiftLanguageModes: [.v6]
)
