import AppexHost
import AppexItems
import AppexTesting
import Foundation
import Testing

/// What Foundation does differently in a program linked with `-static-stdlib`, as appexd and
/// extensions are, and how Appex keeps extension code from meeting it.
@Suite(.serialized, .timeLimit(.minutes(2))) final class StaticFoundationTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
    }

    /// In a program linked with `-static-stdlib`, as extensions are, Foundation's property-list
    /// writer refused every Swift array, so a property list holding one could not be loaded as
    /// data in an extension (AppexCore's `_foundationBridgingLinkage`).
    @Test func anExtensionLoadsAPropertyListHoldingAnEmptyArrayAsData() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let outcome = try await world.extension("attempts").outcome([textItem("plist tags")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome)")
    }

    /// Extension code stores arrays in `UserDefaults` and writes them as property lists. In a
    /// static program without Foundation's bridging conformances, `set([1, 2], forKey:)`
    /// trapped in CoreFoundation and the extension died.
    @Test func anExtensionStoresArraysInItsDefaultsAndReadsThemBack() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let outcome = try await world.extension("attempts").outcome([textItem("defaults com.example.faults.settings")])
        #expect(outcome.items?.first?.attributedContentText?.string == "stored [] [1, 2]", "\(outcome)")
    }
}
