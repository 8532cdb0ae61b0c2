// swift-tools-version: 6.1
import PackageDescription

// The sample apps' programs, in a package of their own that depends on Appex as an author's
// package does: each extension links the shared AppexKit (libAppexKit.so), which appexd's
// launcher has already loaded, and holds only its own code. A target of Appex's own package
// would have AppexKit linked into it, whatever the product's type (docs/zygote.md).
//
// `appex demo` and the tests build it when they first need it, into the build folder of the
// `appex` they run (`SamplePackage`, in Samples/AppexSamples). The bundles' templates are in
// Samples/ (Notes.app and the others), which `appex bundle` fills with these programs.

/// The Appex checkout this folder is part of, named as SwiftPM names a package at a path.
let appex = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "appex").lowercased()

/// The Appex products a target uses, by name.
func appexProducts(_ names: String...) -> [Target.Dependency] {
    names.map { .product(name: $0, package: appex) }
}

/// Each sample program: an app, or one of its extensions, which depends on AppexKit alone.
let programs: [(name: String, dependencies: [Target.Dependency])] = [
    ("notes", appexProducts("AppexApplication", "AppexCore", "AppexGroups", "AppexToday")),
    ("NotesShare", appexProducts("AppexKit")),
    ("NotesAction", appexProducts("AppexKit")),
    ("NotesWidget", appexProducts("AppexKit")),
    ("photos", appexProducts("AppexCore", "AppexGroups")),
    ("PhotosShare", appexProducts("AppexKit")),
    ("texttools", appexProducts("AppexCore", "AppexGroups") + ["TextToolsKit", "TextToolsChecksum"]),
    ("WordCount", appexProducts("AppexKit") + ["TextToolsKit"]),
    ("Checksum", appexProducts("AppexKit") + ["TextToolsChecksum"]),
    ("PageColour", appexProducts("AppexKit")),
    ("monitor", appexProducts("AppexApplication", "AppexCore", "AppexGroups") + ["MonitorKit"]),
    ("MonitorWidget", appexProducts("AppexKit") + ["MonitorKit"]),
]

/// The settings every Appex target has.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "appex-samples",
    platforms: [.macOS(.v15)],
    products: programs.map { .executable(name: $0.name, targets: [$0.name]) },
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"4.0.0"),
    ],
    targets: [
        // The Text Tools sample's shared code: what its app and its actions both do. The
        // checksum, which links swift-crypto (and its BoringSSL, 1.6 MB of code), is a module
        // of its own, so that the word count doesn't carry it.
        .target(name: "TextToolsKit", swiftSettings: swiftSettings),
        .target(name: "TextToolsChecksum", dependencies: [.product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        // The System Monitor sample's shared code: a reading of the system, which its app prints and its widget shows.
        .target(name: "MonitorKit", swiftSettings: swiftSettings),
    ] + programs.map {
        .executableTarget(name: $0.name, dependencies: $0.dependencies, swiftSettings: swiftSettings)
    }
)
