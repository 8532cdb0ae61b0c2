import AppexBrowser
import AppexBrowserTesting
import AppexTesting
import Foundation
import Testing

/// The seed's own example, through a real Chromium: the toolbar's popup lists Page Colour for
/// a page, its preprocessing file runs in the page, the Action answers with a colour, and
/// `finalize` paints the page with it.
@Suite(.needsChromium)
final class PageColourTests {
    static let pageColour = "com.example.texttools.pagecolour"
    static let page = """
        <!doctype html><html><head><title>A plain page</title></head>
        <body><h1>A plain page</h1><p>Some text to select.</p></body></html>
        """

    @Test func pageColourTurnsThePageRed() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.page, at: "/plain.html")
        let popup = try await session.popup(for: tab)
        let listed = try await session.listed(in: popup)
        let shown = try await popup.evaluate("document.getElementById('status').textContent", as: String.self)
        try #require(listed.contains(Self.pageColour), "\(listed) \(shown)")
        try await session.screenshot(popup, as: "popup-list")
        let (outcome, status) = try await session.choose(Self.pageColour, in: popup)
        #expect(outcome == "completed", "\(status)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(255, 0, 0)")
        try await session.screenshot(page, as: "page-after-finalize")
    }

    /// The popup lists what the user enabled, in the user's order: `appex disable` takes an
    /// extension out, and `appex order` puts one first.
    @Test func thePopupFollowsTheUsersChoices() async throws {
        let session = try await BrowserSession()
        let (_, tab) = try await session.open(Self.page, at: "/choices.html")
        try #require(try await session.listed(in: session.popup(for: tab)) == ["com.example.notes.share", Self.pageColour])

        #expect(try await session.appex.run(["disable", Self.pageColour]).status == 0)
        #expect(try await session.listed(in: session.popup(for: tab)) == ["com.example.notes.share"])

        #expect(try await session.appex.run(["enable", Self.pageColour]).status == 0)
        let counter = "com.example.hostile.counter"
        try await HostilePageTests.installHostileApp(in: session)
        #expect(try await session.appex.run(["order", "--point", "action", counter, Self.pageColour]).status == 0)
        let listed = try await session.listed(in: session.popup(for: tab))
        #expect(listed.first == "com.example.notes.share" && listed.dropFirst().prefix(2) == [counter, Self.pageColour], "\(listed)")
    }

    /// Until the user allows user scripts, the popup says how, and nothing runs.
    @Test func withoutUserScriptsThePopupSaysWhatToTurnOn() async throws {
        let session = try await BrowserSession(allowingUserScripts: false)
        let (page, tab) = try await session.open(Self.page, at: "/plain.html")
        let popup = try await session.popup(for: tab)
        let (outcome, status) = try await session.choose(Self.pageColour, in: popup)
        #expect(outcome == "error")
        #expect(status.contains("turn on \"Allow User Scripts\""), "\(status)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgba(0, 0, 0, 0)")
    }

    /// A page whose Content Security Policy forbids every script still gets its preprocessing
    /// file run: it runs in a user-script world, which the page's policy doesn't govern.
    @Test func aPageThatForbidsScriptsIsStillRead() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.page, at: "/strict.html", headers: ["Content-Security-Policy": "script-src 'none'"])
        let popup = try await session.popup(for: tab)
        let (outcome, status) = try await session.choose(Self.pageColour, in: popup)
        #expect(outcome == "completed", "\(status)")
        #expect(try await page.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(255, 0, 0)")
    }
}
