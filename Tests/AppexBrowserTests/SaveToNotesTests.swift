import AppexBrowser
import AppexBrowserTesting
import AppexCore
import AppexTesting
import Foundation
import Testing

/// Notes' Share extension from a real Chromium: its preprocessing file collects the page's
/// title, address and selection, its compose sheet is drawn in the popup from the state the
/// terminal host draws, and the post files the note in the Notes group, where the Notes
/// widget in `appex today` shows it.
@Suite(.needsChromium)
final class SaveToNotesTests {
    static let notes = "com.example.notes.share"
    static let page = """
        <!doctype html><html><head><title>Oat milk, made at home</title></head>
        <body><h1>Oat milk</h1><p id="recipe">Blend oats with cold water, then strain.</p><p>Keeps three days.</p></body></html>
        """

    /// The notes in the Notes group, by file name.
    func notes(in session: BrowserSession) throws -> [String: String] {
        let folder = session.test.home.dataDirectory.appendingPathComponent("Groups/group.com.example.notes/Shared Notes")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try Dictionary(uniqueKeysWithValues: names.map { ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8)) })
    }

    @Test func saveToNotesFilesThePagesTitleAndSelection() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.page, at: "/oat-milk.html")
        _ = try await page.evaluate("""
            (() => { const range = document.createRange(); range.selectNodeContents(document.getElementById('recipe'));
                     getSelection().removeAllRanges(); getSelection().addRange(range); return String(getSelection()); })()
            """, as: String.self)
        let popup = try await session.popup(for: tab)
        #expect(try await session.listed(in: popup).first == Self.notes, "Share extensions come first")
        _ = try await popup.evaluate("document.querySelector('[data-identifier=\"\(Self.notes)\"]').click()", as: Bool?.self)

        // The sheet, as the extension describes it: its placeholder names the page, and Post
        // is enabled with the text empty, since the page itself is what is filed.
        try await popup.waitFor("!document.getElementById('sheet').hidden && !document.getElementById('sheet-post').disabled", timeout: .seconds(30))
        #expect(try await popup.evaluate("document.getElementById('sheet-text').placeholder", as: String.self) == "Add a note to “Oat milk, made at home”")
        #expect(try await popup.evaluate("document.getElementById('sheet-count').textContent", as: String.self) == "500")
        #expect(try await popup.evaluate("document.querySelector('#sheet-items li').textContent", as: String.self) == "FolderInbox")

        // Typing is sent to the extension, which answers with the count it works out.
        _ = try await popup.evaluate("""
            (() => { const text = document.getElementById('sheet-text'); text.value = 'Try with dates';
                     text.dispatchEvent(new Event('input')); return true; })()
            """, as: Bool.self)
        try await popup.waitFor("document.getElementById('sheet-count').textContent === '486' && !document.getElementById('sheet-post').disabled")
        try await session.screenshot(popup, as: "popup-compose")

        _ = try await popup.evaluate("document.getElementById('sheet-post').click()", as: Bool?.self)
        try await popup.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(30))
        #expect(try await popup.evaluate("document.body.dataset.outcome", as: String.self) == "completed")

        let filed = try notes(in: session)
        #expect(filed.count == 1 && filed.keys.first?.hasPrefix("Inbox-") == true)
        #expect(filed.values.first == "Oat milk, made at home\nBlend oats with cold water, then strain.\nTry with dates\n\(session.url("/oat-milk.html"))",
                "\(filed)")

        let added = try await session.appex.run(["today", "add", "com.example.notes.widget"])
        #expect(added.status == 0, "\(added.standardError)")
        let today = try await session.appex.run(["today", "show"])
        #expect(today.status == 0, "\(today.standardError)")
        #expect(today.standardOutput.contains("Oat milk, made at home"), "\(today.standardOutput)")
    }

    /// Cancel in the popup's sheet cancels the request, and nothing is filed.
    @Test func cancelFilesNothing() async throws {
        let session = try await BrowserSession()
        let (_, tab) = try await session.open(Self.page, at: "/cancelled.html")
        let popup = try await session.popup(for: tab)
        _ = try await popup.evaluate("document.querySelector('[data-identifier=\"\(Self.notes)\"]').click()", as: Bool?.self)
        try await popup.waitFor("!document.getElementById('sheet').hidden", timeout: .seconds(30))
        _ = try await popup.evaluate("document.getElementById('sheet-cancel').click()", as: Bool?.self)
        try await popup.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(30))
        #expect(try await popup.evaluate("document.body.dataset.outcome", as: String.self) == "cancelled")
        #expect(try notes(in: session).isEmpty)
    }
}

/// The popup draws a configuration item's pushed list, and a pick goes back to the extension.
@Suite(.needsChromium)
final class ComposeListTests {
    @Test func aFolderPickedFromThePushedListIsWhereTheNoteGoes() async throws {
        let session = try await BrowserSession()
        let (_, tab) = try await session.open(SaveToNotesTests.page, at: "/folders.html")
        let popup = try await session.popup(for: tab)
        _ = try await popup.evaluate("document.querySelector('[data-identifier=\"\(SaveToNotesTests.notes)\"]').click()", as: Bool?.self)
        try await popup.waitFor("!document.getElementById('sheet').hidden && !document.getElementById('sheet-post').disabled", timeout: .seconds(30))
        _ = try await popup.evaluate("document.querySelector('#sheet-items button').click()", as: Bool?.self)
        try await popup.waitFor("!document.getElementById('sheet-options').hidden")
        #expect(try await popup.evaluate("[...document.querySelectorAll('#options button')].map((b) => b.textContent)", as: [String].self)
            == ["✓ Inbox", "Ideas", "Work"])
        _ = try await popup.evaluate("document.querySelectorAll('#options button')[1].click()", as: Bool?.self)
        try await popup.waitFor("document.getElementById('sheet-options').hidden && document.querySelector('#sheet-items li').textContent === 'FolderIdeas'")
        _ = try await popup.evaluate("document.getElementById('sheet-post').click()", as: Bool?.self)
        try await popup.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(30))
        #expect(try await popup.evaluate("document.body.dataset.outcome", as: String.self) == "completed")
        let folder = session.test.home.dataDirectory.appendingPathComponent("Groups/group.com.example.notes/Shared Notes")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(names.count == 1 && names[0].hasPrefix("Ideas-"), "\(names)")
    }
}
