import AppexHost
import AppexItems
import AppexSamples
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

    static let executable = SampleApps.products.appendingPathComponent("AppexSharedRuntimeExtension")

    @Test func aMainThreadThatHandsARuntimeLockToAnotherThreadBeforeCheckingInIsServed() async throws {
        // Only an executable linked to the shared runtime names its library (it is absent from
        // the statically linked fault extension), so the test can't quietly stop testing this.
        #expect(try Data(contentsOf: Self.executable).range(of: Data("libswiftCore.so".utf8)) != nil, "the fixture must link the shared Swift runtime")
        try await world.startDaemon()
        try await world.install([FaultWorld.Plugin(
            fault: "sharedRuntime", principalClass: "AppexSharedRuntimeExtension.Handler", executable: Self.executable)])
        let target = try await world.extension("sharedRuntime")
        let baseline = world.baseline()
        let outcome = try await target.outcome([textItem("hello")])
        let items = try #require(outcome.items, "\(outcome)")
        #expect(items.first?.attributedContentText?.string == "initialized")
        await world.expectNothingLeaked(since: baseline)
    }
}
