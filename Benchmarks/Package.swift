// swift-tools-version: 6.1
import PackageDescription
import struct Foundation.URL

// The benchmark suite of Appex, kept out of the main package so `swift build` there stays light.
// Run it with `swift package benchmark` from this folder; see ../BENCHMARKS.md.
//
// ordo-one/benchmark is used with only its `MallocInterposer` trait: malloc counts come from
// the interposer, so no jemalloc (no system package) is needed, and the Swift 6.3 runtime
// interposer (`RuntimeInterposer`, ARC counts) is left out.

/// The main package's identity: SwiftPM names a path dependency after its folder, which is
/// `appex` in one clone and `wt-bench` in another worktree.
let appex = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent.lowercased()

/// Links the Swift runtime and Foundation into the executable, as the main package links
/// appexd (`staticSwiftLinkerSettings` there: relocations packed, functions in the
/// order of Support/link-order/extension.order), plus Synchronization, which
/// FoundationEssentials needs and which a program that doesn't import it itself would
/// otherwise lack.
let staticSwift: [LinkerSetting] = [.unsafeFlags([
    "-static-stdlib", "-use-ld=lld", "-Xlinker", "-lCoreFoundation", "-Xlinker", "-l_FoundationICU", "-Xlinker", "-l_FoundationCShims",
    "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-lFoundationEssentials", "-Xlinker", "-lFoundationInternationalization",
    "-Xlinker", "-lswiftSynchronization",
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/../Support/link-order/extension.order",
    "-Xlinker", "--no-warn-symbol-ordering",
])]

/// What the runtime benchmarks run besides themselves: appexd, the benchmark extension and the
/// baseline program. Depending on them makes SwiftPM build them beside each benchmark.
let runtimeExecutables: [Target.Dependency] = [.product(name: "appexd", package: appex), "BenchExtension", "BenchTrivial"]

let package = Package(
    name: "AppexBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // The samples' programs (Page Colour, for the browser host's benchmark).
        .package(path: "../Samples/Programs"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // Corpus rules and fixtures (bundles, a 10,000-extension home) the benchmarks share.
        .target(
            name: "AppexBenchmarkSupport",
            dependencies: [
                .product(name: "AppexCore", package: appex), .product(name: "AppexBundles", package: appex),
                .product(name: "AppexRegistry", package: appex), .product(name: "AppexTesting", package: appex),
                .product(name: "AppexHost", package: appex), .product(name: "AppexIPC", package: appex),
                .product(name: "AppexSystem", package: appex), .product(name: "AppexWire", package: appex),
                .product(name: "AppexItems", package: appex), .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Support"
        ),
        // The extension the runtime benchmarks install, and the baseline program they launch;
        // both link the Swift runtime, Foundation and AppexKit statically, the old way.
        .executableTarget(
            name: "BenchExtension", dependencies: [.product(name: "AppexKitStatic", package: appex)],
            path: "Tools/BenchExtension", linkerSettings: staticSwift
        ),
        // The same extension linked to the shared Swift runtime and the shared AppexKit, as an
        // extension's package builds it, for appexd to fork from its launcher (docs/zygote.md):
        // its main.swift is a link to BenchExtension's.
        .executableTarget(
            name: "BenchSharedExtension", dependencies: [.product(name: "AppexKit", package: appex)],
            path: "Tools/BenchSharedExtension"
        ),
        // The widget the widget-update benchmark installs beside the benchmark extension.
        .executableTarget(
            name: "BenchWidget", dependencies: [.product(name: "AppexKitStatic", package: appex)],
            path: "Tools/BenchWidget", linkerSettings: staticSwift
        ),
        // BenchTrivial links CAppexSystem (through AppexSystem) as extensions do, so that in a
        // pid namespace of its own its init forks, as an extension's does.
        .executableTarget(name: "BenchTrivial", dependencies: [.product(name: "AppexSystem", package: appex)],
                          path: "Tools/BenchTrivial", linkerSettings: staticSwift),
        // The other process of the shared-defaults round trip.
        .executableTarget(name: "BenchGroupsEcho", dependencies: [.product(name: "AppexGroups", package: appex)], path: "Tools/BenchGroupsEcho"),
        // The idle hosts of the idle-connections benchmark: each opens and greets connections and holds them.
        .executableTarget(name: "BenchIdleClients", dependencies: [.product(name: "AppexSystem", package: appex), .product(name: "AppexWire", package: appex)],
                          path: "Tools/BenchIdleClients"),
    ]
)

/// Every benchmark target: `Benchmarks/<Name>/`, built with the benchmark plugin.
let benchmarkTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("Activation", [.product(name: "AppexCore", package: appex)]),
    ("LaunchOrder", [.product(name: "AppexSystem", package: appex)]),
    ("FileProviderRead", [.product(name: "AppexFileProviderHost", package: appex), .product(name: "AppexTesting", package: appex)]),
    ("Wire", [.product(name: "AppexWire", package: appex), .product(name: "AppexWireSchema", package: appex),
              .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
    (
        "ShareQuery",
        [
            .product(name: "AppexCore", package: appex), .product(name: "AppexRegistry", package: appex),
            .product(name: "AppexTesting", package: appex), .product(name: "AppexBundles", package: appex),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]
    ),
    ("RoundTrip", [.product(name: "AppexHost", package: appex)] + runtimeExecutables),
    ("ColdStart", [.product(name: "AppexHost", package: appex), .product(name: "appex-launcher", package: appex), "BenchSharedExtension"]
        + runtimeExecutables),
    ("Handover", [.product(name: "AppexHost", package: appex)] + runtimeExecutables),
    ("IdleConnections", [.product(name: "AppexSystem", package: appex), "BenchIdleClients"] + runtimeExecutables),
    // What CI runs (Support/benchmark-smoke): the warm request's mallocs and ColdStart's pair.
    ("Smoke", [.product(name: "AppexHost", package: appex), .product(name: "appex-launcher", package: appex), "BenchSharedExtension"]
        + runtimeExecutables),
    ("Memory", [.product(name: "AppexHost", package: appex), .product(name: "appex-launcher", package: appex), "BenchSharedExtension"]
        + runtimeExecutables),
    ("WidgetUpdate", [.product(name: "AppexHost", package: appex), .product(name: "AppexToday", package: appex), "BenchWidget"] + runtimeExecutables),
    (
        "Sandbox",
        [.product(name: "AppexSandbox", package: appex), .product(name: "AppexSystem", package: appex),
         .product(name: "AppexTesting", package: appex), "BenchTrivial"]
    ),
    (
        "Transfers",
        [
            .product(name: "AppexCore", package: appex), .product(name: "AppexRegistry", package: appex),
            .product(name: "AppexSystem", package: appex), .product(name: "AppexTestServer", package: appex),
            .product(name: "appex-transfers", package: appex),
        ] + runtimeExecutables
    ),
    (
        "InProcessDownloads",
        [
            .product(name: "AppexTransfers", package: appex), .product(name: "AppexNetworking", package: appex),
            .product(name: "AppexTestServer", package: appex),
        ]
    ),
    ("Groups", [.product(name: "AppexGroups", package: appex), .product(name: "AppexTesting", package: appex), "BenchGroupsEcho"]),
    (
        "BrowserHost",
        [
            .product(name: "AppexBrowser", package: appex), .product(name: "AppexBrowserTesting", package: appex),
            .product(name: "AppexHost", package: appex), .product(name: "AppexRegistry", package: appex),
            .product(name: "AppexSystem", package: appex), .product(name: "AppexTestServer", package: appex),
            .product(name: "AppexTesting", package: appex), .product(name: "appex-browser", package: appex),
            .product(name: "PageColour", package: "programs"),
        ] + runtimeExecutables
    ),
    (
        "Install",
        [
            .product(name: "AppexCore", package: appex), .product(name: "AppexBundles", package: appex),
            .product(name: "AppexRegistry", package: appex), .product(name: "AppexTesting", package: appex),
        ]
    ),
]

for target in benchmarkTargets {
    package.targets.append(
        .executableTarget(
            name: target.name,
            dependencies: [.product(name: "Benchmark", package: "benchmark"), "AppexBenchmarkSupport"] + target.dependencies,
            path: "Benchmarks/\(target.name)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}

// Not benchmarks: drivers to run under a profiler (see ../BENCHMARKS.md). They live outside
// Benchmarks/, which the benchmark plugin treats as the folder of benchmark targets.
package.targets.append(
    .executableTarget(
        name: "RequestProfile",
        dependencies: ["AppexBenchmarkSupport", .product(name: "AppexHost", package: appex), .product(name: "appex-launcher", package: appex), "BenchSharedExtension"]
            + runtimeExecutables,
        path: "Tools/RequestProfile"
    )
)
package.targets.append(
    .executableTarget(
        name: "QueryProfile",
        dependencies: ["AppexBenchmarkSupport", .product(name: "AppexCore", package: appex), .product(name: "AppexRegistry", package: appex)],
        path: "Tools/QueryProfile"
    )
)
