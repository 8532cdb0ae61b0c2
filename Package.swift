// swift-tools-version: 6.1
import PackageDescription

/// Settings every target shares, applied in one place.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// How appexd, its helpers and the fault extension (an extension built the old way) link:
/// the Swift runtime and Foundation statically, with lld, and relative relocations packed (DT_RELR, which needs glibc 2.36 or later), so
/// the loader reads 13 KB of them instead of 1.7 MB. An idle appexd is 23 MiB resident this
/// way, against 29.5 MiB linked to the shared Swift libraries. The functions an extension
/// runs to start and to serve a request are laid out together, in the order of
/// Support/link-order/extension.order, so it touches fewer pages of its executable: 10.1 MiB
/// resident instead of 13.5 (see BENCHMARKS.md and Support/link-order/README.md).
///
/// `APPEX_LINK_SWIFT_SHARED` set links them to the shared libraries instead, as
/// `Support/sanitize thread` does: with Foundation linked statically, ThreadSanitizer fails
/// its own allocator check at the program's first `ProcessInfo.environment`.
let staticSwiftLinkerSettings: [LinkerSetting] = Context.environment["APPEX_LINK_SWIFT_SHARED"] != nil ? [] : [.unsafeFlags([
    "-static-stdlib", "-use-ld=lld", "-Xlinker", "-lCoreFoundation", "-Xlinker", "-l_FoundationICU", "-Xlinker", "-l_FoundationCShims",
    "-Xlinker", "-l_FoundationCollections", "-Xlinker", "-lFoundationEssentials", "-Xlinker", "-lFoundationInternationalization",
    "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Support/link-order/extension.order",
    "-Xlinker", "--no-warn-symbol-ordering",
])]

/// The modules of the AppexKit library products: AppexKit, and Apple's framework names, so that
/// extension code written for Apple's platforms imports what it always did (docs/porting.md).
let appexKitTargets = ["AppexKit", "AppexFileProvider", "CoreServices", "FileProvider", "MobileCoreServices", "NotificationCenter", "Social", "UniformTypeIdentifiers"]

var package = Package(
    name: "appex",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "appex", targets: ["appex"]),
        .executable(name: "appexd", targets: ["appexd"]),
        .executable(name: "appex-transfers", targets: ["appex-transfers"]),
        .executable(name: "appex-browser", targets: ["appex-browser"]),
        .executable(name: "appex-launcher", targets: ["appex-launcher"]),
        .library(name: "AppexCore", targets: ["AppexCore"]),
        .library(name: "AppexBundles", targets: ["AppexBundles"]),
        .library(name: "AppexRegistry", targets: ["AppexRegistry"]),
        .library(name: "AppexWire", targets: ["AppexWire"]),
        .library(name: "AppexWireSchema", targets: ["AppexWireSchema"]),
        .library(name: "AppexLocking", targets: ["AppexLocking"]),
        .library(name: "AppexSystem", targets: ["AppexSystem"]),
        .library(name: "AppexIPC", targets: ["AppexIPC"]),
        .library(name: "AppexSandbox", targets: ["AppexSandbox"]),
        .library(name: "AppexHost", targets: ["AppexHost"]),
        .library(name: "AppexAction", targets: ["AppexAction"]),
        .library(name: "AppexShare", targets: ["AppexShare"]),
        .library(name: "AppexBrowser", targets: ["AppexBrowser"]),
        .library(name: "AppexToday", targets: ["AppexToday"]),
        .library(name: "AppexTesting", targets: ["AppexTesting"]),
        .library(name: "AppexExtensionTesting", targets: ["AppexExtensionTesting"]),
        .library(name: "AppexItems", targets: ["AppexItems"]),
        .library(name: "AppexSession", targets: ["AppexSession"]),
        .library(name: "AppexGroups", targets: ["AppexGroups"]),
        // What an extension links: AppexKit and Apple's framework names, as one shared library
        // that appexd's launcher has already loaded, so that an extension's executable holds only
        // its own code (docs/zygote.md). An extension depends on this product alone: another
        // product holding any of the same modules would link them into it a second time.
        .library(name: "AppexKit", type: .dynamic, targets: appexKitTargets),
        // The same, linked into the extension's executable, with the Swift runtime too if its
        // link flags say so: the old way, which appexd spawns (BENCHMARKS.md's static baseline).
        .library(name: "AppexKitStatic", type: .static, targets: appexKitTargets),
        .library(name: "AppexApplication", targets: ["AppexApplication"]),
        .library(name: "AppexTransfers", targets: ["AppexTransfers"]),
        .library(name: "AppexNetworking", targets: ["AppexNetworking"]),
        .library(name: "AppexTestServer", targets: ["AppexTestServer"]),
        .library(name: "AppexBrowserTesting", targets: ["AppexBrowserTesting"]),
        .library(name: "AppexFuzzing", targets: ["AppexFuzzing"]),
        .library(name: "AppexFUSE", targets: ["AppexFUSE"]),
        .library(name: "AppexFileProviderHost", targets: ["AppexFileProviderHost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"4.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Only the transfer tests' HTTP server (AppexTestServer).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        .target(
            name: "AppexCore",
            dependencies: ["AppexLocking"],
            resources: [.copy("Types/SystemTypes.plist")]
        ),
        .target(name: "AppexBundles", dependencies: ["AppexCore", "AppexSystem"]),
        // docs/wire.proto's messages, generated by protoc-gen-swift (Support/generate-wire; CI checks they match).
        .target(name: "AppexWireSchema", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .target(name: "AppexWire", dependencies: ["AppexCore"]),
        .target(name: "CAppexLocking"),
        .target(name: "AppexLocking", dependencies: ["CAppexLocking"]),
        .target(name: "CAppexSystem", dependencies: ["CAppexLocking"]),
        .target(name: "AppexSystem", dependencies: ["AppexLocking", "CAppexSystem"]),
        .target(name: "AppexIPC", dependencies: ["AppexLocking", "AppexCore", "AppexWire", "AppexSystem"]),
        .target(name: "AppexSandbox", dependencies: ["AppexSystem"]),
        // The kernel's FUSE protocol (linux/fuse.h), spoken on /dev/fuse by AppexFUSE.
        .systemLibrary(name: "CFUSEKernel"),
        .target(name: "AppexFUSE", dependencies: ["AppexLocking", "AppexSystem", "CFUSEKernel"]),
        // The File Provider point's host: a domain's replica, served on a FUSE mount (docs/file-provider.md).
        .target(name: "AppexFileProviderHost", dependencies: ["AppexCore", "AppexFUSE", "AppexFileProvider", "AppexLocking", "AppexSystem",
                                                              .product(name: "GRDB", package: "GRDB.swift")]),
        // appexd's launcher, which forks extensions from a process that has started the shared Swift runtime (docs/zygote.md).
        .target(name: "AppexLauncher", dependencies: ["AppexSystem", "CAppexSystem"]),
        .target(name: "AppexSession", dependencies: ["AppexLocking", "AppexCore", "AppexItems", "AppexIPC", "AppexSystem", "AppexWire"]),
        .target(name: "AppexHost", dependencies: ["AppexLocking", "AppexCore", "AppexIPC", "AppexItems", "AppexSession", "AppexSystem"]),
        // The Action point's host glue: the returned items, loaded as the content that replaces the host's.
        .target(name: "AppexAction", dependencies: ["AppexCore", "AppexItems"]),
        .target(name: "AppexShare", dependencies: ["AppexLocking", "AppexHost", "AppexItems", "AppexKit", "AppexWire"]),
        // The browser as a host: the native messaging host's work, and the browser extension it serves (docs/browser.md).
        .target(name: "AppexBrowser", dependencies: ["AppexLocking", "AppexBundles", "AppexCore", "AppexHost", "AppexItems", "AppexShare", "AppexSystem", "AppexWire"],
                resources: [.copy("Extension")]),
        .target(name: "AppexToday", dependencies: ["AppexLocking", "AppexHost", "AppexIPC", "AppexItems", "AppexKit", "AppexSystem", "AppexWire"]),
        .target(name: "AppexGroups", dependencies: ["AppexLocking", "AppexCore", "AppexIPC", "AppexSystem", "AppexWire"]),
        .target(name: "AppexApplication", dependencies: ["AppexLocking"]),
        .target(name: "CAppexKit"),
        .target(name: "AppexKit", dependencies: ["CAppexKit", "AppexLocking", "AppexCore", "AppexGroups", "AppexItems", "AppexIPC", "AppexSession", "AppexSystem", "AppexTransfers", "AppexWire"]),
        // Background sessions for apps and extensions, with Apple's names: appexd performs their tasks.
        .target(name: "AppexTransfers", dependencies: ["AppexLocking", "AppexIPC", "AppexSystem", "AppexWire"]),
        // In-process sessions' transport over FoundationNetworking, found by name: linked only
        // where it is used, since libcurl costs every launch (docs/transfers.md).
        .target(name: "AppexNetworking", dependencies: ["AppexLocking", "AppexTransfers"]),
        // Background transfers: performs the registry's transfer tasks over HTTP. Not linked
        // into appexd, whose idle footprint it would raise from 20 to 29.5 MiB (docs/transfers.md).
        .target(
            name: "AppexTransferEngine",
            dependencies: [
                "AppexLocking", "AppexCore", "AppexRegistry", "AppexSystem",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "AppexDaemon",
            dependencies: [
                "AppexLocking", "AppexCore", "AppexRegistry", "AppexIPC", "AppexLauncher", "AppexSandbox",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "AppexItems", dependencies: ["AppexLocking", "AppexCore", "AppexSystem"]),
        .target(
            name: "AppexRegistry",
            dependencies: ["AppexLocking", "AppexCore", "AppexBundles", "AppexSystem", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(
            name: "AppexSamples",
            dependencies: ["AppexBundles"],
            path: "Samples",
            // The samples' programs are a package of their own, which SamplePackage builds.
            exclude: ["Programs", "Python"],
            sources: ["AppexSamples"],
            resources: [.copy("Notes.app"), .copy("Photos.app"), .copy("TextTools.app"), .copy("Monitor.app")]
        ),
        // A real HTTP server on loopback, in the test's process, for the transfer tests and benchmarks.
        .target(name: "AppexTestServer", dependencies: [
            "AppexLocking",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // A real Chromium, headless, driven over its DevTools pipe, for the browser host's tests and benchmarks.
        .target(name: "AppexBrowserTesting", dependencies: ["AppexLocking", "AppexCore", "AppexSystem"]),
        // What must hold for each parser that faces untrusted input, whatever bytes it is
        // given: libFuzzer drives it from Fuzz/, and AppexFuzzingTests replays the seeds.
        .target(name: "AppexFuzzing", dependencies: ["AppexBrowser", "AppexBundles", "AppexCore", "AppexItems", "AppexToday", "AppexWire"]),
        .target(name: "UniformTypeIdentifiers", dependencies: ["AppexCore"]),
        .target(name: "CoreServices", dependencies: ["AppexCore", "UniformTypeIdentifiers"]),
        .target(name: "MobileCoreServices", dependencies: ["CoreServices"]),
        .target(name: "Social", dependencies: ["AppexShare"]),
        .target(name: "NotificationCenter", dependencies: ["AppexToday"]),
        // The File Provider point's extension side (docs/file-provider.md), and its Apple name.
        .target(name: "AppexFileProvider", dependencies: ["AppexCore"]),
        .target(name: "FileProvider", dependencies: ["AppexFileProvider"]),
        // The extension author's test library: a private Appex, the author's app installed, requests made.
        .target(name: "AppexExtensionTesting", dependencies: ["AppexCore", "AppexBundles", "AppexGroups", "AppexHost", "AppexItems"]),
        .target(name: "AppexTesting", dependencies: ["AppexLocking", "AppexCore", "AppexBundles", "AppexRegistry", "AppexSamples", "AppexSystem"]),
        .executableTarget(
            name: "appex",
            dependencies: [
                "AppexLocking", "AppexCore", "AppexAction", "AppexBundles", "AppexRegistry", "AppexSamples", "AppexHost", "AppexIPC", "AppexItems", "AppexLauncher", "AppexSandbox", "AppexShare", "AppexSystem", "AppexToday", "AppexWire", "AppexBrowser", "appexd", "appex-transfers", "appex-browser", "appex-launcher",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "appexd", dependencies: ["AppexCore", "AppexDaemon", "AppexSystem", "AppexWire"], linkerSettings: staticSwiftLinkerSettings),
        // The transfers' process, which appexd starts when there is work (docs/transfers.md).
        .executableTarget(name: "appex-transfers", dependencies: ["AppexCore", "AppexSystem", "AppexTransferEngine"], linkerSettings: staticSwiftLinkerSettings),
        // The browsers' native messaging host, which Chromium and Firefox start for the Appex browser extension (docs/browser.md).
        .executableTarget(name: "appex-browser", dependencies: ["AppexBrowser", "AppexCore"], linkerSettings: staticSwiftLinkerSettings),
        // Linked to the shared Swift runtime, which it preloads for the programs it forks: never statically.
        .executableTarget(name: "appex-launcher", dependencies: ["AppexLauncher", "AppexSystem"]),
        .testTarget(name: "AppexCoreTests", dependencies: ["AppexCore"]),
        .testTarget(name: "AppexBrowserTests", dependencies: ["AppexBrowser", "AppexBrowserTesting", "AppexCore", "AppexItems", "AppexSamples", "AppexShare", "AppexSystem", "AppexTestServer", "AppexTesting"]),
        .testTarget(name: "AppleFrameworksTests", dependencies: ["AppexKit", "AppexTesting", "CoreServices", "MobileCoreServices", "NotificationCenter",
                                                                "Social", "UniformTypeIdentifiers"]),
        .testTarget(name: "AppexWireTests", dependencies: ["AppexWire", "AppexWireSchema", "AppexCore", .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .testTarget(name: "AppexLockingTests", dependencies: ["AppexLocking"]),
        .testTarget(name: "AppexFileProviderTests", dependencies: ["AppexFileProviderHost", "AppexFUSE", "AppexLocking", "AppexTesting",
                                                                   "FileProvider", "UniformTypeIdentifiers"]),
        .testTarget(name: "AppexFUSETests", dependencies: ["AppexFUSE", "AppexLocking", "AppexSystem", "AppexTesting", "CFUSEKernel"]),
        .testTarget(name: "AppexSystemTests", dependencies: ["AppexLocking", "AppexSystem", "CAppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexIPCTests", dependencies: ["AppexLocking", "AppexIPC", "AppexWire", "AppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexBundlesTests", dependencies: ["AppexBundles", "AppexSamples", "AppexTesting"]),
        .testTarget(name: "AppexRegistryTests", dependencies: ["AppexBundles", "AppexCore", "AppexRegistry", "AppexSamples", "AppexSystem", "AppexTesting", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "AppexCLITests", dependencies: ["AppexLocking", "AppexCore", "AppexTesting", "AppexSamples", "AppexHost", "AppexIPC", "AppexRegistry", "AppexSandbox",
                                                         "AppexSystem", "AppexToday", "appex"]),
        .testTarget(name: "AppexTransferEngineTests", dependencies: ["AppexCore", "AppexRegistry", "AppexSystem", "AppexTestServer", "AppexTesting", "AppexTransferEngine",
                                                                    .product(name: "Crypto", package: "swift-crypto"),
                                                                    .product(name: "NIOCore", package: "swift-nio")]),
        .testTarget(name: "AppexTransfersTests", dependencies: ["AppexLocking", "AppexNetworking", "AppexTestServer", "AppexTransfers", "AppexWire"]),
        .testTarget(name: "AppexItemsTests", dependencies: ["AppexLocking", "AppexItems", "AppexSystem"]),
        .testTarget(name: "AppexApplicationTests", dependencies: ["AppexApplication", "AppexSamples", "AppexSystem", "AppexTesting"]),
        .testTarget(name: "AppexTodayTests", dependencies: ["AppexToday"]),
        .testTarget(name: "AppexFuzzingTests", dependencies: ["AppexFuzzing"]),
        .testTarget(name: "AppexKitTests", dependencies: ["AppexKit", "AppexSamples", "AppexTesting"]),
        .testTarget(name: "AppexGroupsTests", dependencies: ["AppexLocking", "AppexCore", "AppexGroups", "AppexSamples", "AppexSystem", "AppexTesting",
                                                            .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "AppexSandboxTests", dependencies: ["AppexLauncher", "AppexSandbox", "AppexSamples", "AppexSystem", "AppexTesting"]),
        // An extension that misbehaves on purpose, for the runtime's fault tests. Every build
        // builds it, and the tests find it beside themselves; it is not a dependency of the
        // test target, since its static-stdlib link flags would reach the test bundle's link.
        // A second process of an app group, for the tests of shared defaults and containers.
        // A containing app that uses app-only API, for AppexApplication's tests and `appex validate`'s.
        .executableTarget(name: "AppexApplicationHelper", dependencies: ["AppexLocking", "AppexApplication"], path: "Tests/Fixtures/ApplicationHelper"),
        // A process that opens thousands of connections to appexd and never greets, for the hostile-peer tests.
        .executableTarget(name: "AppexConnectionFlood", dependencies: ["AppexSystem", "AppexWire"], path: "Tests/Fixtures/ConnectionFlood"),
        // An extension's main.swift as the porting guide has it, in Swift 5 language mode: it
        // must compile there too (docs/porting.md). Built, never run.
        .executableTarget(name: "AppexSwift5ExtensionMain", dependencies: ["AppexKit"], path: "Tests/Fixtures/Swift5ExtensionMain",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        // An Action written for Apple's platforms (Tests/Fixtures/ApplePorts), built as an author's
        // package builds it, in Swift 5 mode, for ApplePortRunTests to run through appexd.
        // swiftc on Linux warns, wrongly, that its casts from `any NSSecureCoding` to bridged
        // types always fail (docs/porting.md); ApplePortTests checks those are its only warnings.
        .executableTarget(name: "AppexApplePortAction", dependencies: ["AppexKit", "MobileCoreServices"], path: "Tests/Fixtures/ApplePorts/Action",
                          swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])]),
        // The Today widget of the same ports, likewise built in Swift 5 mode, and the Share
        // extension, built in Swift 6 mode.
        .executableTarget(name: "AppexApplePortToday", dependencies: ["AppexKit", "NotificationCenter"], path: "Tests/Fixtures/ApplePorts/Today",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "AppexApplePortShare", dependencies: ["AppexKit", "AppexNetworking", "Social"], path: "Tests/Fixtures/ApplePorts/Share",
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        // Another user's fake appexd, which a client must send nothing, for the hostile-peer tests.
        .executableTarget(name: "AppexFakeDaemon", dependencies: ["AppexSystem"], path: "Tests/Fixtures/FakeDaemon"),
        // A host that makes requests one after another and reports each one's outcome, for the load and chaos tests.
        .executableTarget(name: "AppexLoadHost", dependencies: ["AppexLocking", "AppexHost", "AppexItems", "AppexWire"], path: "Tests/Fixtures/LoadHost"),
        // The step gate: runs a program so that each change it makes to the file system waits for the
        // crash-consistency tests, which SIGKILL it there, one step after another.
        .target(name: "CAppexStepGate", path: "Tests/Fixtures/StepGate"),
        // How many test cases the test run runs at once; every test target links it (below).
        .target(name: "CAppexTestRunWidth", path: "Tests/Fixtures/TestRunWidth"),
        .executableTarget(name: "AppexStepGate", dependencies: ["CAppexStepGate"], path: "Tests/Fixtures/StepGateWrapper"),
        .executableTarget(name: "AppexGroupsHelper", dependencies: ["AppexLocking", "AppexApplication", "AppexCore", "AppexGroups", "AppexIPC", "AppexSystem", "AppexToday", "AppexTransfers", "AppexWire", .product(name: "GRDB", package: "GRDB.swift")],
                          path: "Tests/Fixtures/GroupsHelper"),
        .executableTarget(
            name: "AppexFaultExtension",
            dependencies: ["AppexKit", "AppexShare", "AppexToday", "AppexTransfers", "AppexWire"],
            path: "Tests/Fixtures/FaultExtension",
            linkerSettings: staticSwiftLinkerSettings
        ),
        // An extension linked to the shared Swift libraries, as `swift build` links one by default.
        .executableTarget(name: "AppexSharedRuntimeExtension", dependencies: ["AppexKit"], path: "Tests/Fixtures/SharedRuntimeExtension"),
        // A program linked to the shared Swift libraries that forks a child to run Swift in (ForkedRuntimeTests).
        .executableTarget(name: "AppexForkedRuntime", dependencies: ["CAppexSystem"], path: "Tests/Fixtures/ForkedRuntime"),
        // A program linked to the shared Swift runtime that says how it was started, for the launcher to load (LauncherTests).
        .executableTarget(name: "AppexLoadedProgram", dependencies: ["AppexLocking"], path: "Tests/Fixtures/LoadedProgram"),
        // A launcher in miniature: forks children through ProcessLaunch.forkRunning (ForkRunTests).
        .executableTarget(name: "AppexForkRunLauncher", dependencies: ["AppexSandbox", "AppexSystem", "CAppexSystem"], path: "Tests/Fixtures/ForkRunLauncher"),
        .testTarget(
            name: "AppexCrashConsistencyTests",
            dependencies: ["AppexCore", "AppexGroups", "AppexRegistry", "AppexSamples", "AppexSystem", "AppexTestServer", "AppexTesting", "CAppexStepGate",
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "AppexRuntimeTests",
            dependencies: [
                "AppexLocking", "AppexCore", "AppexExtensionTesting", "AppexGroups", "AppexHost", "AppexIPC", "AppexItems", "AppexRegistry", "AppexSamples", "AppexSandbox", "AppexSession",
                "AppexShare", "AppexSystem", "AppexTestServer", "AppexTesting", "AppexToday", "AppexWire",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)

// The test bundle runs as many test cases at once as CAppexTestRunWidth says, not all of them.
for target in package.targets where target.type == .test {
    target.dependencies.append("CAppexTestRunWidth")
}

/// Code written as it is on Apple's platforms, built without the project's own settings.
let appleStyleTargets = ["AppexSwift5ExtensionMain", "AppexApplePortAction", "AppexApplePortToday", "AppexApplePortShare"]

for target in package.targets where target.type != .plugin
    && !(["CAppexSystem", "CAppexKit", "CFUSEKernel", "CAppexStepGate", "AppexStepGate", "CAppexTestRunWidth"] + appleStyleTargets).contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + swiftSettings
}
