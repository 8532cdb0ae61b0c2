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
        .library(name: "AppexTesting", targets: ["AppexTesting"]),
    ] + sampleExecutables.map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
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
                "AppexCore", "AppexBundles", "AppexRegistry", "AppexSamples",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + sampleExecutables.map { .target(name: $0) }
        ),
        .executableTarget(name: "appexd", dependencies: ["AppexCore"]),
        .testTarget(name: "AppexCoreTests", dependencies: ["AppexCore"]),
        .testTarget(name: "AppexWireTests", dependencies: ["AppexWire", "AppexCore"]),
        .testTarget(name: "AppexSystemTests", dependencies: ["AppexSystem", "CAppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexIPCTests", dependencies: ["AppexIPC", "AppexWire", "AppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexBundlesTests", dependencies: ["AppexBundles", "AppexTesting"]),
        .testTarget(name: "AppexRegistryTests", dependencies: ["AppexRegistry", "AppexTesting"]),
        .testTarget(name: "AppexCLITests", dependencies: ["AppexCore", "AppexTesting", "AppexSamples", "appex"]),
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
