// swift-tools-version:6.2
import PackageDescription

// Every Swift target: an existential is spelled `any P`, so its cost shows at the use site. The C
// modules are imported `internal` file by file (or `package` where a package-wide declaration
// uses their types), so none leaks into a module's public interface.
let swiftSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Pushgate",
    products: [
        .library(name: "PushgateCore", targets: ["PushgateCore"]),
        .library(name: "PushgateStore", targets: ["PushgateStore"]),
        .library(name: "PushgateHTTP", targets: ["PushgateHTTP"]),
        .library(name: "PushgateProviders", targets: ["PushgateProviders"]),
        .library(name: "PushgateRelay", targets: ["PushgateRelay"]),
        .executable(name: "pushgate", targets: ["pushgate"]),
        .executable(name: "pushgate-dev", targets: ["pushgate-dev"]),
        .executable(name: "pushgate-relay", targets: ["pushgate-relay"]),
        .library(name: "PushgateHost", targets: ["PushgateHost"]),
        .executable(name: "pushgate-host", targets: ["pushgate-host"]),
    ],
    targets: [
        // System libraries (Debian -dev packages installed by Scripts/bootstrap).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL"),
        .systemLibrary(name: "CNGHTTP2", path: "Sources/CNGHTTP2"),
        .systemLibrary(name: "CCurl", path: "Sources/CCurl"),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ"),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium"),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // Libraries, in dependency order: each depends only on those above it.
        .target(name: "PushgateCore", dependencies: ["COpenSSL", "CSodium"], swiftSettings: swiftSettings),
        .target(name: "PushgateStore", dependencies: ["PushgateCore", "CSQLite", "CLibPQ"], swiftSettings: swiftSettings),
        .target(name: "PushgateHTTP", dependencies: ["PushgateCore", "COpenSSL", "CNGHTTP2", "CMicroHTTPD", "CCurl", "CLinux"], swiftSettings: swiftSettings),
        .target(name: "PushgateProviders", dependencies: ["PushgateCore", "PushgateHTTP"], swiftSettings: swiftSettings),
        .target(name: "PushgateRelay", dependencies: ["PushgateCore", "PushgateStore", "PushgateHTTP", "PushgateProviders"], swiftSettings: swiftSettings),
        .target(name: "PushgateHost", dependencies: ["PushgateCore", "PushgateStore", "PushgateHTTP", "PushgateProviders"], swiftSettings: swiftSettings),
        .target(name: "PushgateTesting", dependencies: ["PushgateCore", "PushgateHTTP", "COpenSSL", "CNGHTTP2", "CLinux"], swiftSettings: swiftSettings),
        // The bench's report: figure lines in, docs/performance.md and its charts out (docs/bench.md).
        .target(name: "PushgateBenchReport", swiftSettings: swiftSettings),
        // What both command-line tools share: the argument list, the command table, their errors and files.
        .target(name: "PushgateCommandLine", dependencies: ["PushgateCore"], swiftSettings: swiftSettings),

        // Executables: flag parsing only, logic lives in the libraries. `pushgate` is what
        // operators run; `pushgate-dev` (the fakes, the benchmark drivers) is not packaged.
        .executableTarget(name: "pushgate", dependencies: ["PushgateCommandLine", "PushgateCore", "PushgateStore", "PushgateHTTP",
                                                         "PushgateProviders"], swiftSettings: swiftSettings),
        .executableTarget(name: "pushgate-dev", dependencies: ["PushgateCommandLine", "PushgateCore", "PushgateStore", "PushgateHTTP",
                                                             "PushgateProviders", "PushgateTesting", "PushgateHost", "PushgateBenchReport"], swiftSettings: swiftSettings),
        .executableTarget(name: "pushgate-relay", dependencies: ["PushgateRelay"], swiftSettings: swiftSettings),
        .executableTarget(name: "pushgate-host", dependencies: ["PushgateHost"], swiftSettings: swiftSettings),

        // Tests, one target per module, and what they share: the hang limit, blocking work.
        .target(name: "PushgateTestSupport", dependencies: ["CLinux"], path: "Tests/PushgateTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "PushgateCoreTests", dependencies: ["PushgateTestSupport", "PushgateCore"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateStoreTests", dependencies: ["PushgateTestSupport", "PushgateStore", "PushgateTesting", "PushgateCore"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateHTTPTests", dependencies: ["PushgateTestSupport", "PushgateHTTP", "PushgateTesting", "PushgateCore"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateProvidersTests",
                    dependencies: ["PushgateTestSupport", "PushgateProviders", "PushgateHTTP", "PushgateTesting", "PushgateCore"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateRelayTests",
                    dependencies: ["PushgateTestSupport", "PushgateRelay", "PushgateProviders", "PushgateTesting", "PushgateCore", "pushgate-relay"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateTestingTests",
                    dependencies: ["PushgateTestSupport", "PushgateTesting", "PushgateProviders", "PushgateHTTP", "PushgateCore", "COpenSSL"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateHostTests",
                    dependencies: ["PushgateTestSupport", "PushgateHost", "PushgateRelay", "PushgateTesting", "PushgateProviders", "PushgateCore", "pushgate-host"], swiftSettings: swiftSettings),
        .testTarget(name: "PushgateBenchReportTests", dependencies: ["PushgateBenchReport"], swiftSettings: swiftSettings),
        .testTarget(name: "pushgateTests",
                    dependencies: ["PushgateTestSupport", "pushgate", "pushgate-dev", "pushgate-relay", "PushgateProviders", "PushgateHTTP",
                                   "PushgateTesting", "PushgateCore"], swiftSettings: swiftSettings),
        // What an operator gets beside the binaries: the environment files, the operations
        // guide's command lines, the alert rules and the dashboard against the real metrics.
        .testTarget(name: "PushgateOperationsTests",
                    dependencies: ["PushgateTestSupport", "pushgate", "pushgate-dev", "pushgate-relay", "pushgate-host", "PushgateTesting",
                                   "PushgateCore"], swiftSettings: swiftSettings),
        // The real binaries on loopback under provider and relay faults (docs/performance.md, "faults").
        .testTarget(name: "PushgateFaultTests",
                    dependencies: ["PushgateTestSupport", "pushgate", "pushgate-dev", "pushgate-relay", "pushgate-host", "PushgateTesting", "PushgateCore"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
