// swift-tools-version:6.0
import PackageDescription

// The libFuzzer targets (docs/fuzzing.md). A package of its own so the root package's builds never
// see them; `Scripts/fuzz` builds it with the fuzzer and address sanitizers into `.build/fuzz`.
let package = Package(
    name: "PushgateFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Pushgate", path: "..")],
    targets: [
        .executableTarget(name: "pushgate-fuzz", dependencies: [
            .product(name: "PushgateCore", package: "Pushgate"),
            .product(name: "PushgateStore", package: "Pushgate"),
            .product(name: "PushgateHTTP", package: "Pushgate"),
            .product(name: "PushgateProviders", package: "Pushgate"),
            .product(name: "PushgateRelay", package: "Pushgate"),
            .product(name: "PushgateHost", package: "Pushgate"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
