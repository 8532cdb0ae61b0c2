import AppexCore
import AppexExtensionTesting
import AppexGroups
import AppexHost
import AppexItems
import AppexShare
import AppexTestServer
import AppexTesting
import AppexToday
import Foundation
import Testing

/// Extension code written for Apple's platforms runs as it does there, through appexd and a
/// real host, tested as an extension author tests theirs: with `ExtensionTestHost`, which
/// assembles Tests/Fixtures/ApplePorts/Ports.app from its Info.plists (in Xcode's build
/// settings) and the built ports, and installs it in a private home. The Action, built in
/// Swift 5 mode, is a plain `NSObject` subclass found by name, reads the page's JavaScript
/// preprocessing results as `[String: Any]`, and hands back its finalize argument as an
/// `NSDictionary`.
@Suite(.timeLimit(.minutes(2))) final class ApplePortRunTests {
    static let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ApplePorts/Ports.app")
    static let action = "com.example.ports.action"
    static let share = "com.example.ports.share"
    static let today = "com.example.ports.today"
    static let group = "group.com.example.faults"

    func host() async throws -> ExtensionTestHost {
        try await ExtensionTestHost(app: Self.template)
    }

    @Test func theActionTemplatesRoundTripOfAPagesResultsWorks() async throws {
        let host = try await host()
        for (current, expected) in [("red", "blue"), ("white", "red")] {
            let results: NSDictionary = ["NSExtensionJavaScriptPreprocessingResultsKey": ["currentBackgroundColor": current, "title": "A page"]]
            let item = NSExtensionItem()
            item.attachments = [NSItemProvider(item: results, typeIdentifier: "com.apple.property-list")]
            let outcome = try await host.request(Self.action, items: [item])
            let provider = try #require(outcome.items?.first?.attachments?.first, "\(outcome)")
            let returned = try await provider.loadItem(forTypeIdentifier: "com.apple.property-list")
            let argument = (returned as? NSDictionary)?["NSExtensionJavaScriptFinalizeArgumentKey"] as? [String: Any]
            #expect(argument?["newBackgroundColor"] as? String == expected, "\(returned)")
        }
        await host.finish()
    }

    /// The Today port's `widgetPerformUpdate(completionHandler: (@escaping (NCUpdateResult) -> Void))`,
    /// written as Apple documents it, is the update the Today view runs.
    @Test func theTodayWidgetIsShownAndUpdatedThroughItsOwnMethods() async throws {
        let host = try await host()
        let shared = try host.groupDefaults(Self.group)
        let widget = try await host.extension(Self.today)
        let session = try await WidgetSession.begin(widget, presentation: WidgetPresentation(mode: .compact, width: 360)) { _ in }
        for _ in 0..<300 where session.content == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(session.content?.view == .text("Waiting", style: .body))
        #expect(session.content?.largestMode == .expanded, "viewDidLoad set widgetLargestAvailableDisplayMode")
        for count in 1...2 {
            let update = await session.update()
            #expect(update.result == .newData && update.failure == nil, "\(update)")
            #expect(update.content?.view == .text("Updated \(count) times", style: .body))
        }
        #expect(await eventually { shared.string(forKey: "widgetShown") == "appearing" }, "viewWillAppear ran")
        _ = await session.dismiss()
        #expect(shared.string(forKey: "widgetShown") == "gone", "viewDidDisappear ran when the Today view closed")
        await host.finish()
    }

    /// The Share port, built in Swift 6 mode, is Xcode's template filled in: its sheet, its
    /// account row, and a post that carries the text and the link it loaded as a `URL`.
    @Test func theShareSheetIsShownAndPostsTheTextAndTheLink() async throws {
        let host = try await host()
        let shared = try host.groupDefaults(Self.group)
        shared.removeObject(forKey: "shareLifecycle")
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "Look at this")
        item.attachments = [NSItemProvider(object: URL(string: "https://example.com/a")! as NSURL)]
        let session = try await ComposeSession.begin(try await host.extension(Self.share), items: [item])
        let sheet = try #require(await session.sheet(within: .seconds(30)), "no sheet")
        #expect(sheet.contentText == "Look at this" && sheet.placeholder == "Say something")
        #expect(sheet.charactersRemaining == 268 && sheet.isContentValid)
        #expect(sheet.configurationItems == [ComposeSheet.ConfigurationItem(title: "Account", value: "Personal", isTappable: true)])
        let tap = try session.send(.tap(0))
        let tapped = try #require(await session.sheet(answering: tap, within: .seconds(10)))
        #expect(tapped.configurationItems.first?.value == "Work", "the tap handler changed the account and reloaded the rows")
        try session.send(.post)
        let outcome = await session.outcome()
        let posted = try #require(outcome.items?.first, "\(outcome)")
        #expect(posted.attributedContentText?.string == "Look at this")
        let link = try await posted.attachments?.first?.loadItem(forTypeIdentifier: "public.url")
        #expect((link as? NSURL)?.absoluteString == "https://example.com/a", "the link Post loaded with loadObject(ofClass: URL.self)")
        // UIKit's order: the sheet appears, and is gone before Post runs.
        #expect(shared.stringArray(forKey: "shareLifecycle") == [
            "viewDidLoad", "viewWillAppear", "viewDidAppear", "presentationAnimationDidFinish",
            "viewWillDisappear", "viewDidDisappear", "didSelectPost",
        ])
        await host.finish()
    }

    /// The Share port's Post hands its text to a background session written as Apple's
    /// "Performing Uploads and Downloads" writes it, with `import AppexKit` alone: the request
    /// ends, and appexd's transfers process uploads the file to the server. It also posts the
    /// text itself with `URLSession.shared`, from inside its sandbox, through AppexNetworking,
    /// which its target links.
    @Test func theSharePortPostsInTheBackgroundAndFromItself() async throws {
        let server = try await LoopbackHTTPServer.start()
        let host = try await host()
        let shared = try host.groupDefaults(Self.group)
        shared.set(server.url("/posts").absoluteString, forKey: "uploadURL")
        // The direct post goes where the server asks for a password, which the port's
        // delegate answers from the group's defaults.
        shared.set(server.url("/private/direct").absoluteString, forKey: "postURL")
        shared.set(LoopbackHTTPServer.privateUser, forKey: "postUser")
        shared.set(LoopbackHTTPServer.privatePassword, forKey: "postPassword")
        let item = NSExtensionItem()
        item.attributedContentText = NSAttributedString(string: "Uploaded in the background")
        let session = try await ComposeSession.begin(try await host.extension(Self.share), items: [item])
        _ = try #require(await session.sheet(within: .seconds(30)), "no sheet")
        try session.send(.post)
        let outcome = await session.outcome()
        #expect(outcome.items?.first?.attributedContentText?.string == "Uploaded in the background", "\(outcome)")
        let body = Data("Uploaded in the background".utf8)
        #expect(await eventually(seconds: 60) { server.uploads(at: "/posts").contains { $0.carries(body) } },
                "the server took the text: \(server.uploads(at: "/posts")), \(server.seen)")
        // And from the extension itself, with URLSession.shared, before the request completed.
        #expect(server.uploads(at: "/private/direct").last?.carries(body) == true, "\(server.seen)")
        #expect(server.seen("/private/direct").count == 2, "asked once, then answered with the password: \(server.seen)")
        #expect(shared.string(forKey: "posted")?.hasPrefix("201 {\"bytes\": 26, ") == true, "\(String(describing: shared.string(forKey: "posted")))")
        shared.removeObject(forKey: "uploadURL")
        shared.removeObject(forKey: "postURL")
        shared.removeObject(forKey: "postUser")
        shared.removeObject(forKey: "postPassword")
        await host.finish()
        await server.stop()
    }

    // MARK: UserDefaults(suiteName: "group.…")

    /// The Action port keeps its last colour with Foundation's `UserDefaults(suiteName:)`, and
    /// never calls `synchronize()`: what it writes is the group's by the time its request ends.
    @Test func theActionsFoundationSuiteIsTheGroupsAndIsWrittenBeforeItsRequestEnds() async throws {
        let host = try await host()
        let shared = try host.groupDefaults(Self.group)
        shared.set("green", forKey: "lastColour")
        for (current, previous, written) in [("red", "green", "blue"), ("blue", "blue", "red")] {
            let results: NSDictionary = ["NSExtensionJavaScriptPreprocessingResultsKey": ["currentBackgroundColor": current]]
            let item = NSExtensionItem()
            item.attachments = [NSItemProvider(item: results, typeIdentifier: "com.apple.property-list")]
            let outcome = try await host.request(Self.action, items: [item])
            let returned = try await outcome.items?.first?.attachments?.first?.loadItem(forTypeIdentifier: "com.apple.property-list")
            let argument = (returned as? NSDictionary)?["NSExtensionJavaScriptFinalizeArgumentKey"] as? [String: Any]
            #expect(argument?["previousColour"] as? String == previous, "it read the group's value: \(String(describing: returned))")
            #expect(shared.string(forKey: "lastColour") == written, "written to the group before the request ended")
        }
        await host.finish()
    }

    /// The Today port reads its headline with Foundation's `UserDefaults(suiteName:)` at each
    /// update: a headline the app sets while the widget runs is the one it shows next.
    @Test func theWidgetsFoundationSuiteSeesTheAppsChangesWhileItRuns() async throws {
        let host = try await host()
        let shared = try host.groupDefaults(Self.group)
        shared.set("Seen", forKey: "headline")
        let session = try await WidgetSession.begin(try await host.extension(Self.today), presentation: WidgetPresentation(mode: .compact, width: 360)) { _ in }
        for _ in 0..<300 where session.content == nil { try await Task.sleep(for: .milliseconds(10)) }
        #expect(await session.update().content?.view == .text("Seen 1 times", style: .body))
        shared.set("Read", forKey: "headline")
        var shown: [WidgetView?] = []
        for count in 2...40 where shown.last != .text("Read \(count - 1) times", style: .body) {
            shown.append(await session.update().content?.view)
        }
        #expect(shown.contains(.text("Read \(shown.count + 1) times", style: .body)), "the app's change reached the running widget: \(shown)")
        #expect(await eventually { shared.integer(forKey: "widgetUpdates") >= 2 }, "the widget's count reached the group")
        _ = await session.dismiss()
        await host.finish()
    }

    @Test func anItemWithoutResultsCompletesWithNothing() async throws {
        let host = try await host()
        let outcome = try await host.request(Self.action, items: [.text("no page here")])
        #expect(outcome.items?.isEmpty == true, "\(outcome)")
        await host.finish()
    }
}
