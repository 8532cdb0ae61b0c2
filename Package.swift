// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares, applied in one place.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The sample apps: each executable is a real program that `appex bundle` puts into a bundle.
let sampleExecutables = ["notes", "NotesShare", "NotesAction", "photos", "PhotosShare", "PhotosWidget"]

var package = Package(
    name: "appex",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "appex", targets: ["appex"]),
        .executable(name: "appexd", targets: ["appexd"]),
        .library(name: "AppexCore", targets: ["AppexCore"]),
        .library(name: "AppexBundles", targets: ["AppexBundles"]),
        .library(name: "AppexRegistry", targets: ["AppexRegistry"]),
        .library(name: "AppexWire", targets: ["AppexWire"]),
        .library(name: "AppexSystem", targets: ["AppexSystem"]),
        .library(name: "AppexIPC", targets: ["AppexIPC"]),
        .library(name: "AppexHost", targets: ["AppexHost"]),
        .library(name: "AppexTesting", targets: ["AppexTesting"]),
        .library(name: "AppexItems", targets: ["AppexItems"]),
    ] + sampleExecutables.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "AppexCore",
            resources: [.copy("Types/SystemTypes.plist")]
        ),
        .target(name: "AppexBundles", dependencies: ["AppexCore"]),
        .target(name: "AppexWire", dependencies: ["AppexCore"]),
        .target(name: "CAppexSystem"),
        .target(name: "AppexSystem", dependencies: ["CAppexSystem"]),
        .target(name: "AppexIPC", dependencies: ["AppexWire", "AppexSystem"]),
        .target(name: "AppexHost", dependencies: ["AppexCore", "AppexIPC"]),
        .target(
            name: "AppexDaemon",
            dependencies: [
                "AppexCore", "AppexRegistry", "AppexIPC",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "AppexItems", dependencies: ["AppexCore"]),
        .target(
            name: "AppexRegistry",
            dependencies: ["AppexCore", "AppexBundles", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "AppexSamples",
            dependencies: ["AppexBundles"],
            path: "Samples",
            exclude: ["Executables"],
            sources: ["AppexSamples"],
            resources: [.copy("Notes.app"), .copy("Photos.app")]
        ),
        .target(name: "AppexTesting", dependencies: ["AppexCore", "AppexBundles", "AppexRegistry", "AppexSamples"]),
        .executableTarget(
            name: "appex",
            dependencies: [
                "AppexCore", "AppexBundles", "AppexRegistry", "AppexSamples", "AppexHost", "AppexWire", "appexd",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + sampleExecutables.map { .target(name: $0) }
        ),
        .executableTarget(name: "appexd", dependencies: ["AppexCore", "AppexDaemon"]),
        .testTarget(name: "AppexCoreTests", dependencies: ["AppexCore"]),
        .testTarget(name: "AppexWireTests", dependencies: ["AppexWire", "AppexCore"]),
        .testTarget(name: "AppexSystemTests", dependencies: ["AppexSystem", "CAppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexIPCTests", dependencies: ["AppexIPC", "AppexWire", "AppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexBundlesTests", dependencies: ["AppexBundles", "AppexTesting"]),
        .testTarget(name: "AppexRegistryTests", dependencies: ["AppexRegistry", "AppexTesting"]),
        .testTarget(name: "AppexCLITests", dependencies: ["AppexCore", "AppexTesting", "AppexSamples", "AppexHost", "AppexIPC", "appex"]),
        .testTarget(name: "AppexItemsTests", dependencies: ["AppexItems"]),
    ] + sampleExecutables.map {
        .executableTarget(
            name: $0,
            dependencies: ["notes", "photos"].contains($0) ? ["AppexCore"] : [],
            path: "Samples/Executables/\($0)"
        )
    }
)

for target in package.targets where target.type != .plugin && target.name != "CAppexSystem" {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
