import AppexCore
import AppexHost
import AppexItems
import AppexSamples
import AppexShare
import AppexTesting
import Foundation
import Testing

/// Share's compose sheet end to end, with real extension processes: the extension's
/// `SLComposeServiceViewController` sends its state as point messages, the host's
/// `ComposeSession` sends the user's doings back, and every way an extension can break the
/// sheet ends with a clear message, never a hang.
@Suite(.serialized) final class ComposeSheetTests {
    let world: FaultWorld

    init() async throws {
        world = try FaultWorld()
        try await world.startDaemon()
    }

    func install(_ faults: String...) async throws {
        try await world.install(faults.map {
            FaultWorld.Plugin(fault: $0, principalClass: "AppexFaultExtension.ComposeFault", point: ExtensionPoint.share.id)
        })
    }

    func textItem(_ text: String) -> NSExtensionItem {
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: text)
        item.attachments = [NSItemProvider(object: text)]
        return item
    }

    func begin(_ fault: String, text: String) async throws -> ComposeSession {
        try await ComposeSession.begin(try await world.extension(fault), items: [textItem(text)])
    }

    /// Apple's `cancel()` dismisses the sheet through `didSelectCancel()`, as the user's Cancel does.
    @Test func cancelEndsTheSheetAsTheUsersCancelWould() async throws {
        try await install("composeGivesUp")
        let session = try await begin("composeGivesUp", text: "Lunch")
        _ = try #require(await session.sheet(within: .seconds(30)), "no sheet; \(world.daemonLog)")
        try session.send(.text("give up"))
        let outcome = await session.outcome()
        #expect(outcome.cancellationError?.domain == NSCocoaErrorDomain && outcome.cancellationError?.code == CocoaError.userCancelled.rawValue, "\(outcome)")
    }

    @Test func theSheetFollowsTheTextAndItsItemsAndPostsWhatTheUserLeft() async throws {
        try await install("compose")
        let compose = try await world.extension("compose")
        let baseline = world.baseline()
        let session = try await ComposeSession.begin(compose, items: [textItem("Lunch")])
        let first = try #require(await session.sheet(within: .seconds(30)), "no sheet; \(world.daemonLog)")
        #expect(first.contentText == "Lunch", "the text starts as the host's content text")
        #expect(first.charactersRemaining == 15 && first.isContentValid && first.answering == 0)
        #expect(first.configurationItems == [ComposeSheet.ConfigurationItem(title: "Folder", value: "Inbox", isTappable: true)])

        // isContentValid() is asked again as the text changes: over the limit, Post is off.
        let long = try session.send(.text("Lunch at noon with the whole team"))
        let over = try #require(await session.sheet(answering: long, within: .seconds(10)))
        #expect(over.answering == long && over.contentText == "Lunch at noon with the whole team")
        #expect(over.charactersRemaining == -13 && !over.isContentValid)
        let short = try session.send(.text("Lunch at noon"))
        let valid = try #require(await session.sheet(answering: short, within: .seconds(10)))
        #expect(valid.charactersRemaining == 7 && valid.isContentValid)

        // A tap pushes the list; a pick runs the extension's handler, which pops it.
        let tap = try session.send(.tap(0))
        let listed = try #require(await session.sheet(answering: tap, within: .seconds(10)))
        #expect(listed.optionList == ComposeSheet.OptionList(title: "Folder", options: ["Inbox", "Ideas"], selected: 0))
        let pick = try session.send(.pick(1))
        let picked = try #require(await session.sheet(answering: pick, within: .seconds(10)))
        #expect(picked.optionList == nil && picked.configurationItems.first?.value == "Ideas")

        try session.send(.post)
        let outcome = await session.outcome()
        #expect(outcome.items?.first?.attributedContentText?.string == "posted \"Lunch at noon\" to Ideas", "\(outcome)")
        #expect(session.hasEnded && session.failure == nil)
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func cancelEndsTheRequestWithUserCancelled() async throws {
        try await install("compose")
        let session = try await begin("compose", text: "Lunch")
        _ = try #require(await session.sheet(within: .seconds(30)))
        try session.send(.cancel)
        let error = try #require(await session.outcome().cancellationError)
        #expect(error.domain == NSCocoaErrorDomain && error.code == CocoaError.userCancelled.rawValue)
    }

    @Test func anEditTheExtensionNeverAnswersTimesOutAndTheHostCanStillCancel() async throws {
        try await install("composeHangsValidating", "compose")
        let session = try await begin("composeHangsValidating", text: "Lunch")
        _ = try #require(await session.sheet(within: .seconds(30)))
        let sent = try session.send(.text("Lunch!"))
        let started = ContinuousClock.now
        #expect(await session.sheet(answering: sent, within: ComposeSession.answerDeadline) == nil, "isContentValid() never returns")
        #expect(ContinuousClock.now - started < .seconds(10))
        // The extension's main thread is stuck; the host's cancel doesn't need it.
        session.cancel()
        let error = try #require(await session.outcome().cancellationError)
        #expect(error.code == CocoaError.userCancelled.rawValue)

        // The host, and appexd, go on serving: another sheet works.
        let next = try await begin("compose", text: "Still here")
        #expect(await next.sheet(within: .seconds(30))?.contentText == "Still here")
        next.cancel()
    }

    @Test func aSheetThatIsNotJSONEndsTheRequestWithWhy() async throws {
        try await install("composeMalformedSheet")
        let session = try await begin("composeMalformedSheet", text: "Lunch")
        _ = await session.outcome()
        let failure = try #require(session.failure)
        #expect(failure.contains("the extension sent a compose message that can't be read: sheet's body is not the JSON"), "\(failure)")
    }

    @Test func aSheetPastItsLimitsIsRefused() async throws {
        try await install("composeTooManyItems")
        let session = try await begin("composeTooManyItems", text: "Lunch")
        #expect(await session.sheet(within: .seconds(30)) == nil)
        let failure = try #require(session.failure)
        #expect(failure.contains("it has 40 configuration items; a sheet has at most 32"), "\(failure)")
    }

    @Test func aPlainRequestToAComposeSheetIsCancelledWithWhatItNeeds() async throws {
        try await install("compose")
        let outcome = try await world.extension("compose").request(withInputItems: [textItem("Lunch")])
        let error = try #require(outcome.cancellationError, "\(outcome)")
        #expect(error.localizedDescription.contains("sent its point's \"sheet\" message, which this host doesn't take"), "\(error)")
    }

    // MARK: appex share, with extensions that misbehave

    @Test func theTerminalSheetSaysWhenTheExtensionDoesNotAnswerAndEscapeStillCancels() async throws {
        try await install("composeHangsValidating")
        let terminal = try PseudoTerminal(AppexBuild.products.appendingPathComponent("appex"),
                                          ["share", "--text", "Lunch", "--to", FaultWorld.identifier("composeHangsValidating")],
                                          environment: world.test.environment)
        try await terminal.waitForScreen(containing: "15 characters left")
        terminal.send("!")
        try await terminal.waitForScreen(containing: "No answer from Faults in 2 s: Post stays off until it checks the text. Esc cancels.")
        terminal.send("\u{13}") // Ctrl-S: refused, after a bounded wait
        try await terminal.waitForScreen(containing: "Waiting for Faults to check the text…")
        try await terminal.waitForScreen(containing: "No answer from Faults in 2 s: Post stays off")
        terminal.send(PseudoTerminal.Keys.escape)
        try await terminal.waitForScreen(containing: "cancelled; nothing was posted")
        #expect(try await terminal.waitForExit() == 1)
    }

    /// Threat-model 5.6: what the sheet says is drawn with its control characters escaped.
    @Test func aSheetCantDriveTheTerminalItIsDrawnOn() async throws {
        try await install("composeDrivesTheTerminal")
        let terminal = try PseudoTerminal(AppexBuild.products.appendingPathComponent("appex"),
                                          ["share", "--text", "Lunch", "--to", FaultWorld.identifier("composeDrivesTheTerminal")],
                                          environment: world.test.environment)
        let shown = #"Evil\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}[H\r\nappex: all clear"#
        let screen = try await terminal.waitForScreen(showing: "the title and the folder escaped") {
            $0.components(separatedBy: shown).count == 3
        }
        #expect(!screen.contains("\nappex: all clear"), "the sheet forged a line: \(screen)")
        for obeyed in ["\u{1B}]", "\u{07}", "\u{1B}[2J", "\u{1B}[H"] {
            #expect(!terminal.transcript.contains(obeyed), "the terminal was sent \(obeyed.debugDescription)")
        }
        terminal.send(PseudoTerminal.Keys.escape)
        #expect(try await terminal.waitForExit() == 1)
    }

    @Test func appexShareSaysWhyASheetCantBeShown() async throws {
        try await install("composeMalformedSheet", "composeTooManyItems")
        let malformed = try await world.appex.run(["share", "--text", "Lunch", "--to", FaultWorld.identifier("composeMalformedSheet")])
        #expect(malformed.status == 3)
        #expect(malformed.standardError.contains("Faults's compose sheet can't be shown, so the request was cancelled: the extension sent a compose message that can't be read"),
                "\(malformed.standardError)")
        let tooMany = try await world.appex.run(["share", "--text", "Lunch", "--to", FaultWorld.identifier("composeTooManyItems"), "--json"])
        #expect(tooMany.status == 3)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(tooMany.standardOutput.utf8)) as? [String: Any])
        #expect(report["outcome"] as? String == "failed")
        #expect((report["error"] as? String)?.contains("it has 40 configuration items") == true, "\(report)")
    }
}
