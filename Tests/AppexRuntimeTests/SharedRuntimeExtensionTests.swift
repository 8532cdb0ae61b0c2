import AppexHost
import AppexItems
import AppexSamples
import AppexSandbox
import AppexSystem
import AppexTesting
import Foundation
import Testing

/// An extension linked to the shared Swift libraries, as `swift build` links one by default,
/// runs as well as one linked statically. The shared runtime starts before the launcher's
/// pid-namespace init forks the program off (CAppexSystem's init.c), so this is where a
/// runtime that noted its thread ids before the fork would show: its locks would name the
/// init as their holder, and the first lock the main thread hands over would spin forever.
@Suite(.timeLimit(.minutes(2))) final class SharedRuntimeExtensionTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    static let executable = AppexBuild.products.appendingPathComponent("AppexSharedRuntimeExtension")

    @Test func aMainThreadThatHandsARuntimeLockToAnotherThreadBeforeCheckingInIsServed() async throws {
        // Only an executable linked to the shared runtime names its library (it is absent from
        // the statically linked fault extension), so the test can't quietly stop testing this.
        #expect(try Data(contentsOf: Self.executable).range(of: Data("libswiftCore.so".utf8)) != nil, "the fixture must link the shared Swift runtime")
        // Spawned: the launcher's case is below.
        try await world.startDaemon(["APPEX_LAUNCHER": "off"])
        try await world.install([FaultWorld.Plugin(
            fault: "sharedRuntime", principalClass: "AppexSharedRuntimeExtension.Handler", executable: Self.executable)])
        let target = try await world.extension("sharedRuntime")
        let baseline = world.baseline()
        let outcome = try await target.outcome([textItem("hello")])
        let items = try #require(outcome.items, "\(outcome)")
        #expect(items.first?.attributedContentText?.string == "initialized")
        #expect(items.first?.attributedTitle?.string == "SharedRuntime.appex SharedRuntime")
        await world.expectNothingLeaked(since: baseline)
    }

    /// appexd forks it from its launcher once the launcher is up (docs/zygote.md). Its
    /// global waits on the runtime's lock for it, which names its holder by a thread id the
    /// launcher's runtime noted before the fork: the child must have forgotten it. It finds
    /// its own bundle and name, as when spawned.
    @Test(.disabled(if: Sanitizers.areActive, "a sanitized extension carries its sanitizer's runtime, which must be alone in its process, so appexd spawns it (LauncherTests.aSanitizedProgramIsSpawnedSayingWhy)"))
    func appexdForksItFromTheLauncherAndItRunsAsWhenSpawned() async throws {
        try #require(Sandbox.KernelSupport.current.isolationProblem == nil, "the launcher starts programs only in a pid namespace")
        // It carries AppexKit's code itself, so a launcher that has loaded the shared AppexKit
        // spawns it (LauncherTests covers that): this launcher has none.
        try await world.startDaemon(["APPEX_KIT": "off"])
        try await world.install([FaultWorld.Plugin(
            fault: "sharedRuntime", principalClass: "AppexSharedRuntimeExtension.Handler", executable: Self.executable)])
        // Ready once appexd says so: a launch before then is spawned.
        let deadline = ContinuousClock.now + .seconds(30)
        while !world.daemonLog.contains("the launcher"), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(world.daemonLog.contains(" is ready: it starts extensions linked to "), "\(world.daemonLog)")
        let launcher = try #require(world.launcherProcess(), "appexd starts its launcher")
        let target = try await world.extension("sharedRuntime")
        let baseline = world.baseline()
        let outcome = try await target.outcome([textItem("hello")])
        let item = try #require(outcome.items?.first, "\(outcome)")
        #expect(item.attributedContentText?.string == "initialized")
        #expect(item.attributedTitle?.string == "SharedRuntime.appex SharedRuntime")
        let program = try #require(world.extensionProcesses().first { ProcessTree.name(of: $0) != "appex-init" })
        #expect(FaultWorld.executable(of: program)?.hasSuffix("/appex-launcher") == true, "loaded, not spawned")
        #expect(ProcessTree.parent(of: program).flatMap { ProcessTree.parent(of: $0) } == launcher, "its init is the launcher's")
        await world.expectNothingLeaked(since: baseline)
    }
}
