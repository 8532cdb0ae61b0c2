// swift-tools-version: 6.1
import PackageDescription

// Test fixtures that must be built as an author's extension is: linked to the shared
// AppexKit (libAppexKit.so), which appexd's launcher has loaded, so that appexd forks them
// from the launcher. A target of Appex's own package would have AppexKit linked into it,
// whatever the product's type (docs/zygote.md), and be spawned. `FixturePackage` (in
// AppexTesting) builds this package on first use, into the build folder of the running tests.

/// The Appex checkout this folder is part of, named as SwiftPM names a package at a path.
let appex = String(Context.packageDirectory.split(separator: "/").dropLast(3).last ?? "appex").lowercased()

let package = Package(
    name: "appex-fixtures",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "LoadExtension", targets: ["LoadExtension"])],
    dependencies: [.package(path: "../../..")],
    targets: [
        // The load test's extension (LoadTests): echoes, never answers, or crashes, by its principal class.
        .executableTarget(name: "LoadExtension", dependencies: [.product(name: "AppexKit", package: appex)],
                          swiftSettings: [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility"),
                                          .enableUpcomingFeature("InternalImportsByDefault")]),
    ]
)
