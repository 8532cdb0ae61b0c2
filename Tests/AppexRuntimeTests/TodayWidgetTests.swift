import AppexCore
import AppexHost
import AppexItems
import AppexRegistry
import AppexSamples
import AppexTesting
import AppexWire
import AppexToday
import Foundation
import AppexLocking
import Testing

/// Today widgets end to end, with real extension processes: the widget's
/// `WidgetViewController` sends its view as point messages, the host's `WidgetSession`
/// presents it, asks for updates and passes on what the user does, and every way a widget can
/// break the Today view ends that widget with a clear message, never a hang.
@Suite(.serialized) final class TodayWidgetTests {
    let world: FaultWorld
    /// Where the app that opens `faultapp:` URLs writes each URL it was launched with.
    let launches: URL

    init() async throws {
        world = try FaultWorld()
        launches = world.test.scratch.appendingPathComponent("launches.txt")
        try await world.startDaemon(["APPEX_TEST_LAUNCH_RECORD": launches.path])
    }

    func install(_ faults: String...) async throws {
        try await world.install(faults.map {
            FaultWorld.Plugin(fault: $0, principalClass: "AppexFaultExtension.WidgetFault", point: ExtensionPoint.today.id)
        })
    }

    /// A widget's session with its events kept, to wait on.
    final class Shown: Sendable {
        let session: WidgetSession
        let contents: Contents

        init(_ session: WidgetSession, _ contents: Contents) {
            self.session = session
            self.contents = contents
        }
    }

    /// The contents a widget sent, in order.
    final class Contents: Sendable {
        private let received = Locked<[WidgetContent]>([])

        func add(_ content: WidgetContent) { received.withLock { $0.append(content) } }

        /// The first content, from the `skipping`th on, that `matches`; nil after 30 s.
        func first(where matches: (WidgetContent) -> Bool) async -> WidgetContent? {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let found = received.withLock({ $0.first(where: matches) }) { return found }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    func show(_ fault: String, mode: NCWidgetDisplayMode = .compact, updateDeadline: Duration = WidgetSession.defaultUpdateDeadline,
              confirm: NSExtension.URLOpenConfirmation? = nil) async throws -> Shown {
        let widget = try await world.extension(fault)
        widget.urlOpenConfirmationBlock = confirm
        let contents = Contents()
        let session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: mode, width: 360), updateDeadline: updateDeadline) { event in
            if case .content(let content) = event { contents.add(content) }
        }
        return Shown(session, contents)
    }

    static func headline(of content: WidgetContent) -> String? {
        guard case .stack(_, _, let rows) = content.view, case .stack(_, _, let cells)? = rows.first,
              case .text(let text, _, _) = cells[1] else { return nil }
        return text
    }

    // MARK: Presenting and updating

    @Test func aWidgetIsPresentedUpdatesAndFollowsTheDisplayModeAndEditing() async throws {
        try await install("widget")
        _ = try await world.extension("widget")
        let baseline = world.baseline()
        let shown = try await show("widget")
        let loaded = try #require(await shown.contents.first { Self.headline(of: $0) == "Loaded" }, "no content; \(world.daemonLog)")
        #expect(loaded.largestMode == .expanded, "viewDidLoad set widgetLargestAvailableDisplayMode")
        #expect(loaded.allowsEditing && loaded.margins == WidgetMargins(top: 0, left: 8, bottom: 0, right: 8))
        #expect(loaded.view.links == ["faultapp://item/0", "nowhere://item"])

        let first = await shown.session.update()
        #expect(first.result == .newData && first.failure == nil)
        #expect(first.content.flatMap(Self.headline) == "Update 1", "the content sent before the answer is there with it")
        let second = await shown.session.update()
        #expect(second.result == .noData && second.content.flatMap(Self.headline) == "Update 1")
        // Asked again while an update runs (each takes 0.2 s), the widget answers both.
        async let third = shown.session.update()
        async let fourth = shown.session.update()
        let (answers, again) = await (third, fourth)
        #expect(answers.failure == nil && again.failure == nil, "\(answers.failure ?? "") \(again.failure ?? "")")

        shown.session.setDisplayMode(.expanded)
        let expanded = try #require(await shown.contents.first { Self.headline(of: $0)?.hasPrefix("Mode") == true })
        #expect(Self.headline(of: expanded) == "Mode expanded up to 616", "widgetMaximumSize(for: .expanded) is 616 high")
        #expect(expanded.preferredHeight == 220 && expanded.height(in: .expanded) == 220 && expanded.height(in: .compact) == 110)

        shown.session.setEditing(true)
        #expect(await shown.contents.first { Self.headline(of: $0) == "Editing began" } != nil)
        shown.session.setEditing(false)
        #expect(await shown.contents.first { Self.headline(of: $0) == "Editing ended" } != nil)

        let outcome = await shown.session.dismiss()
        #expect(outcome.items != nil, "a dismissed widget completes its request: \(outcome)")
        #expect(shown.session.failure == nil)
        // The widget's output reaches appexd's log through a pipe appexd copies from.
        #expect(await eventually(seconds: 30) { self.world.daemonLog.contains("completion handler was called more than once") }, "a second call of the handler is logged")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aWidgetThatEndsBeforeItListensIsNotShownAndTheHostHearsWhy() async throws {
        try await install("crashAtLaunch")
        do {
            _ = try await show("crashAtLaunch")
            Issue.record("a widget that crashed at launch was shown")
        } catch let error as ErrorInfo {
            // Whether appexd saw the crash before it answered the begin or after, the host hears it.
            #expect(error.message.contains("can't be shown") || error.message.contains("can't be started"), "\(error.message)")
            #expect(error.message.contains("crash") || error.message.contains("SIGABRT"), "why it ended, not a wait that ran out: \(error.message)")
            #expect(!error.message.contains("didn't start listening within"), "\(error.message)")
        }
    }

    @Test func aWidgetPresentedExpandedHearsItAtOnce() async throws {
        try await install("widget")
        let shown = try await show("widget", mode: .expanded)
        #expect(await shown.contents.first { Self.headline(of: $0) == "Mode expanded up to 616" } != nil)
        _ = await shown.session.dismiss()
    }

    @Test func aFailedUpdateIsReportedAsTheWidgetSaidIt() async throws {
        try await install("widgetFails")
        let shown = try await show("widgetFails")
        let update = await shown.session.update()
        #expect(update.result == .failed && update.failure == nil, "the widget said .failed itself")
        #expect(update.content.flatMap(Self.headline) == "Loaded")
        _ = await shown.session.dismiss()
    }

    @Test func anUpdateThatIsNeverAnsweredEndsTheWidget() async throws {
        try await install("widgetHangsUpdating")
        _ = try await world.extension("widgetHangsUpdating")
        let baseline = world.baseline()
        let shown = try await show("widgetHangsUpdating", updateDeadline: .milliseconds(500))
        let update = await shown.session.update()
        #expect(update.result == .failed)
        #expect(update.failure?.contains("didn't answer its update within 0.5 seconds") == true, "\(update.failure ?? "nil")")
        let outcome = await shown.session.outcome()
        #expect(outcome.cancellationError != nil, "\(outcome)")
        await world.expectNothingLeaked(since: baseline)
    }

    @Test func aTallWidgetIsClippedToExpandedsHeightAndItsLogSaysSo() async throws {
        try await install("widgetTall")
        let shown = try await show("widgetTall")
        shown.session.setDisplayMode(.expanded)
        let tall = try #require(await shown.contents.first { $0.preferredHeight == 800 })
        #expect(tall.height(in: .expanded) == 616)
        _ = await shown.session.dismiss()
        #expect(await eventually(seconds: 30) { self.world.daemonLog.contains("preferredContentSize asks for 800 points, more than expanded's 616: the widget is clipped to it") })
    }

    // MARK: Views that can't be drawn

    @Test(arguments: [
        ("widgetMalformedView", "content's body is not the JSON a widget's message has: not JSON"),
        ("widgetHugeView", "over the 262144 a widget's message may be"),
        ("widgetTooManyViews", "the description holds more than 256 views"),
    ])
    func aViewThatCantBeDrawnEndsTheWidgetWithWhatIsWrong(fault: String, message: String) async throws {
        try await install(fault)
        _ = try await world.extension(fault)
        let baseline = world.baseline()
        let shown = try await show(fault)
        let outcome = await shown.session.outcome()
        #expect(outcome.cancellationError != nil, "\(outcome)")
        #expect(shown.session.failure?.contains(message) == true, "\(shown.session.failure ?? "nil")")
        let update = await shown.session.update()
        #expect(update.result == .failed && update.failure?.contains(message) == true, "an ended widget's update fails with the reason")
        if fault == "widgetTooManyViews" {
            #expect(await eventually(seconds: 30) { self.world.daemonLog.contains("the widget's view can't be drawn, so the host keeps what it has") }, "the widget's own check logs")
        }
        await world.expectNothingLeaked(since: baseline)
    }

    // MARK: Opening URLs

    @Test func followingALinkAsksTheHostThenLaunchesTheAppThatDeclaresTheScheme() async throws {
        try await install("widget")
        try await world.installURLApp()
        let asked = Locked<[URLOpenRequest]>([])
        let shown = try await show("widget") { request in
            asked.withLock { $0.append(request) }
            return true
        }
        _ = try #require(await shown.contents.first { _ in true })
        let followed = await shown.session.followLink("faultapp://item/0")
        #expect(followed.opened, "\(followed.reason)")
        let request = try #require(asked.withLock { $0.first })
        #expect(request.url.absoluteString == "faultapp://item/0" && request.appName == "Fault App")
        let widget = try await world.extension("widget")
        #expect(request.extensionIdentifier == widget.identifier && request.extensionName == widget.summary.displayName)
        let deadline = ContinuousClock.now + .seconds(30)
        var record = ""
        while ContinuousClock.now < deadline, !record.contains("\n") {
            record = (try? String(contentsOf: launches, encoding: .utf8)) ?? ""
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(record == "faultapp://item/0 from \(FaultWorld.identifier("widget"))\n", "the app gets the URL in its launch options")
        _ = await shown.session.dismiss()
    }

    /// Another app declaring the scheme, installed later, doesn't take it, though its
    /// identifier sorts first; the user's choice gives it the scheme.
    @Test func aSchemeTwoAppsDeclareGoesToTheFirstInstalledUntilTheUserChoosesTheOther() async throws {
        try await install("widget")
        try await world.installURLApp()
        var later = BundleBuilder.app("com.example.aaa", name: "Later App", in: world.test.scratch.appendingPathComponent("later-app"))
        later.info["CFBundleURLTypes"] = .array([.dictionary(["CFBundleURLSchemes": .array([.string("FaultApp")])])])
        try await world.install(later)
        let named = Locked<[String]>([])
        let shown = try await show("widget") { request in
            named.withLock { $0.append(request.appName) }
            return false
        }
        _ = try #require(await shown.contents.first { _ in true })
        _ = await shown.session.followLink("faultapp://item/0")
        try Registry(home: world.test.home).setHandler(ofScheme: "faultapp", to: "com.example.aaa")
        _ = await shown.session.followLink("faultapp://item/0")
        #expect(named.withLock { $0 } == ["Fault App", "Later App"])
        _ = await shown.session.dismiss()
    }

    @Test func aLinkTheUserDeclinesOrAHostWithoutConfirmationOpensNothing() async throws {
        try await install("widget")
        try await world.installURLApp()
        let declining = try await show("widget") { _ in false }
        _ = try #require(await declining.contents.first { _ in true })
        let declined = await declining.session.followLink("faultapp://item/0")
        #expect(!declined.opened && declined.reason == "the user declined to open faultapp://item/0")
        _ = await declining.session.dismiss()

        let silent = try await show("widget")
        _ = try #require(await silent.contents.first { _ in true })
        let unasked = await silent.session.followLink("faultapp://item/0")
        #expect(!unasked.opened && unasked.reason.contains("this host opens no URLs for its extensions"), "\(unasked.reason)")
        _ = await silent.session.dismiss()
        #expect(!FileManager.default.fileExists(atPath: launches.path), "no app was launched")
    }

    @Test func aSchemeNoAppDeclaresAndALinkNotInTheViewAreRefused() async throws {
        try await install("widget")
        let asked = Locked(0)
        let shown = try await show("widget") { _ in
            asked.withLock { $0 += 1 }
            return true
        }
        _ = try #require(await shown.contents.first { _ in true })
        let nowhere = await shown.session.followLink("nowhere://item")
        #expect(!nowhere.opened && nowhere.reason.contains("no installed app declares the URL scheme \"nowhere\" in its CFBundleURLTypes"), "\(nowhere.reason)")
        let stranger = await shown.session.followLink("faultapp://not-in-the-view")
        #expect(!stranger.opened && stranger.reason == "the widget's view has no link to faultapp://not-in-the-view")
        #expect(asked.withLock { $0 } == 0, "the user is never asked about a URL that can't be opened")
        let update = await shown.session.update()
        #expect(update.result == .newData, "the widget keeps working")
        _ = await shown.session.dismiss()
    }

    @Test func anExtensionOfAPointThatMayNotOpenURLsIsRefused() async throws {
        try await world.install("opensURL")
        try await world.installURLApp()
        let action = try await world.extension("opensURL")
        action.urlOpenConfirmationBlock = { _ in true }
        let outcome = try await action.request(withInputItems: [NSExtensionItem()])
        #expect(outcome.items?.first?.attributedContentText?.string == "extensions of Action may not open URLs: only points whose policy allows it, such as Today widgets, may")
        #expect(!FileManager.default.fileExists(atPath: launches.path))
    }
}
