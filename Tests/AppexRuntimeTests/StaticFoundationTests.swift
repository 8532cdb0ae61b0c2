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

    /// Foundation's property-list writer refuses every empty array in a program linked with
    /// `-static-stdlib`, as extensions are, so a property list holding one could not be loaded
    /// as data in an extension; Appex writes XML itself (`PropertyListXMLWriter`).
    @Test func anExtensionLoadsAPropertyListHoldingAnEmptyArrayAsData() async throws {
        try await world.startDaemon()
        try await world.install("attempts")
        let outcome = try await world.extension("attempts").outcome([textItem("plist tags")])
        #expect(outcome.items?.first?.attributedContentText?.string == "allowed", "\(outcome)")
    }
}
