import AppexHost
import AppexItems
import AppexSamples
import Foundation
import Testing

/// Extension code written for Apple's platforms runs as it does there, through appexd and a
/// real host: the Action of Tests/Fixtures/ApplePorts, built in Swift 5 mode, is a plain
/// `NSObject` subclass found by name, reads the page's JavaScript preprocessing results as
/// `[String: Any]`, and hands back its finalize argument as an `NSDictionary`.
@Suite(.timeLimit(.minutes(2))) final class ApplePortRunTests {
    let world: FaultWorld

    init() throws {
        world = try FaultWorld()
    }

    @Test func theActionTemplatesRoundTripOfAPagesResultsWorks() async throws {
        try await world.startDaemon()
        try await world.install([FaultWorld.Plugin(fault: "port", principalClass: "AppexApplePortAction.ActionRequestHandler",
                                                   executable: SampleApps.products.appendingPathComponent("AppexApplePortAction"))])
        let action = try await world.extension("port")
        let baseline = world.baseline()
        for (current, expected) in [("red", "blue"), ("white", "red")] {
            let results: NSDictionary = ["NSExtensionJavaScriptPreprocessingResultsKey": ["currentBackgroundColor": current, "title": "A page"]]
            let item = NSExtensionItem()
            item.attachments = [NSItemProvider(item: results, typeIdentifier: "com.apple.property-list")]
            let outcome = try await action.outcome([item])
            let provider = try #require(outcome.items?.first?.attachments?.first, "\(outcome)")
            let returned = try await provider.loadItem(forTypeIdentifier: "com.apple.property-list")
            let argument = (returned as? NSDictionary)?["NSExtensionJavaScriptFinalizeArgumentKey"] as? [String: Any]
            #expect(argument?["newBackgroundColor"] as? String == expected, "\(returned)")
        }
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func anItemWithoutResultsCompletesWithNothing() async throws {
        try await world.startDaemon()
        try await world.install([FaultWorld.Plugin(fault: "port", principalClass: "AppexApplePortAction.ActionRequestHandler",
                                                   executable: SampleApps.products.appendingPathComponent("AppexApplePortAction"))])
        let outcome = try await world.extension("port").outcome([textItem("no page here")])
        #expect(outcome.items?.isEmpty == true, "\(outcome)")
    }
}
