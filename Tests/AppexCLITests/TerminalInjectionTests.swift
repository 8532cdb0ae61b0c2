@testable import appex
import AppexCore
import AppexSamples
import AppexShare
import AppexTesting
import AppexToday
import Foundation
import Testing

/// Text a bundle or an extension chose never reaches the user's terminal as control
/// characters (threat-model 5.6 and 5.8): a name, a compose sheet, a widget or a returned item can't
/// retitle the window, clear the screen, move the cursor or forge a line of its own.
@Suite final class TerminalInjectionTests {
    /// Sets the window's title, clears the screen, homes the cursor, and starts a new line
    /// that pretends to be appex's own.
    static let hostile = "Evil\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[H\r\nappex: all clear\u{9B}31m"

    /// What a terminal would obey in `text`: ESC, BEL, CSI, CR or LF.
    static func obeyed(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { ["\u{1B}", "\u{07}", "\u{9B}", "\r", "\n"].contains($0) }
    }

    /// `text` without the SGR sequences the hosts style their own text with.
    static func plain(_ text: String) -> String {
        text.replacing(/\u{1B}\[[0-9;]*m/, with: "")
    }

    static let shown = #"Evil\u{1B}]0;owned\u{7}\u{1B}[2J\u{1B}[H\r\nappex: all clear\u{9B}31m"#

    @Test func theEscapedFormIsWhatThePersonSees() {
        #expect(Self.hostile.escapingControlCharacters == Self.shown)
        #expect(Self.obeyed(Self.shown).isEmpty)
    }

    @Test func aBundlesNameIsShownEscapedByListInfoQueryAndInstallAndValidateWarnsOfIt() async throws {
        let test = try TestHome()
        let appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        var app = BundleBuilder.app("com.example.evil", name: "Evil", in: test.scratch)
        app.info["CFBundleDisplayName"] = .string(Self.hostile)
        app.addExtension("Share", identifier: "com.example.evil.share", point: ExtensionPoint.share.id,
                         attributes: ["NSExtensionActivationRule": "TRUEPREDICATE"])
        app.plugIns[0].info["CFBundleDisplayName"] = .string(Self.hostile)
        app.plugIns[0].info["CFBundleShortVersionString"] = .string("1.0\u{1B}[2J")
        let path = try app.write().path

        let validated = try await appex.run(["validate", path])
        #expect(validated.standardOutput.contains("CFBundleDisplayName: holds control characters"), "\(validated.standardOutput)")
        #expect(Self.obeyed(validated.standardOutput).allSatisfy { $0 == "\n" })

        let installed = try await appex.run(["install", path])
        #expect(installed.status == 0, "\(installed.standardError)")
        let items = test.scratch.appendingPathComponent("items.json")
        try Data(#"[{"attributedContentText": "x"}]"#.utf8).write(to: items)
        let listed = try await appex.run(["list"])
        #expect(listed.standardOutput == #"+    com.example.evil.share(1.0\u{1B}[2J)"# + "\n")
        for arguments in [["list", "--verbose"], ["info", "com.example.evil"], ["info", "com.example.evil.share"],
                          ["query", "-p", "share", "--items", items.path]] {
            let result = try await appex.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.standardError)")
            #expect(result.standardOutput.contains(Self.shown), "\(arguments) shows the name escaped: \(result.standardOutput)")
            #expect(!result.standardOutput.contains("\u{1B}"), "\(arguments) wrote an escape character")
            for line in result.standardOutput.split(separator: "\n") {
                #expect(!line.hasPrefix("appex: all clear"), "\(arguments) let the name forge a line")
            }
        }
        #expect(installed.standardOutput.contains(Self.shown))
        #expect(!installed.standardOutput.contains("\u{1B}"))
    }

    @Test func aComposeSheetsTextIsDrawnEscaped() {
        var sheet = ComposeSheet(contentText: "Lunch")
        sheet.title = Self.hostile
        sheet.configurationItems = [ComposeSheet.ConfigurationItem(title: Self.hostile, value: Self.hostile, isTappable: true)]
        var view = ComposeSheetView(sheet: sheet, name: "Notes", attachments: [])
        view.text = "first\n" + Self.hostile
        view.status = Self.hostile
        let lines = view.lines
        #expect(lines.contains { $0.contains(Self.shown) })
        #expect(lines.contains("first"), "the text's own line breaks still make lines")
        for line in lines { #expect(Self.obeyed(Self.plain(line)).isEmpty, "\(line)") }

        sheet.optionList = ComposeSheet.OptionList(title: Self.hostile, options: [Self.hostile], selected: 0)
        view.update(sheet)
        #expect(view.lines.filter { $0.contains(Self.shown) }.count == 3, "the list's title, its option and the status: \(view.lines)")
        for line in view.lines { #expect(Self.obeyed(Self.plain(line)).isEmpty, "\(line)") }
    }

    @Test func aWidgetsTextAndLabelsAreDrawnEscaped() {
        let content = WidgetContent(view: .vstack([.text("ok\n" + Self.hostile), .progress(0.5, label: Self.hostile)]),
                                    preferredHeight: 600, largestMode: .expanded, margins: WidgetMargins(top: 0, left: 0, bottom: 0, right: 0))
        var links: [String] = []
        let lines = WidgetRenderer(width: 400, styled: false).lines(of: content, rows: 28, links: &links)
        #expect(lines.first == "ok")
        #expect(lines.filter { $0.contains(Self.shown) }.count == 2, "\(lines)")
        for line in lines { #expect(Self.obeyed(line).isEmpty, "\(line)") }
    }

    @Test func aChoiceListsLabelsAreDrawnEscaped() {
        let list = ChoiceList(title: "Share with", choices: [.init(label: Self.hostile, detail: "com.example.evil.share", note: nil)])
        let drawn = list.lines.map(Self.plain)
        #expect(drawn[1].contains(Self.shown))
        for line in drawn { #expect(Self.obeyed(line).isEmpty, "\(line)") }
    }

    @Test func aRequestsReturnedItemsAndErrorArePrintedEscaped() {
        let report = RequestReport(
            extensionIdentifier: "com.example.evil.share", outcome: "cancelled",
            items: [.init(title: Self.hostile, contentText: Self.hostile, userInfo: ["note": .string(Self.hostile)],
                          attachments: [.init(types: ["public.plain-text"], text: Self.hostile)])],
            error: Self.hostile, milliseconds: 1
        )
        let lines = report.lines()
        #expect(lines.filter { $0.contains(Self.shown) }.count == 5, "\(lines)")
        for line in lines { #expect(Self.obeyed(line).isEmpty, "\(line)") }
    }
}
