// swift-tools-version: 6.1
import PackageDescription
import struct Foundation.URL

// Appex's coverage-guided fuzzing, kept out of the main package: its one executable is built
// with `-sanitize=fuzzer`, which instruments every module and links libFuzzer's driver. Run it
// with `Fuzz/run`; see ../docs/fuzzing.md.

/// The main package's identity: SwiftPM names a path dependency after its folder.
let appex = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "appex-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "appex-fuzz", dependencies: ["CLibFuzzer", .product(name: "AppexFuzzing", package: appex)],
                         linkerSettings: [.unsafeFlags(["-use-ld=lld"])]),
        // Declares libFuzzer's driver, which appex-fuzz calls from its own main.
        .target(name: "CLibFuzzer"),
    ]
)
