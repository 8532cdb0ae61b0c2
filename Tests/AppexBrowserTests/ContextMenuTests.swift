import AppexBrowser
import AppexBrowserTesting
import AppexCore
import AppexTestServer
import AppexTesting
import Foundation
import Testing

/// The context menu's entries, chosen as Chromium's menu chooses them: the service worker's
/// click handler, with what the user right-clicked. (A headless browser draws no menu.)
@Suite(.needsChromium)
final class ContextMenuTests {
    static let page = #"<!doctype html><html><head><title>Words</title></head><body><p id="words">one two three</p><p>after</p></body></html>"#

    /// Word Count on a selection: its result replaces the selected text in the page.
    @Test func anActionOnASelectionReplacesIt() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.page, at: "/words.html")
        _ = try await page.evaluate("""
            (() => { const range = document.createRange(); range.selectNodeContents(document.getElementById('words'));
                     getSelection().removeAllRanges(); getSelection().addRange(range); return true; })()
            """, as: Bool.self)
        _ = try await session.worker.evaluate("appex.buildMenus()", as: Bool?.self)
        _ = try await session.worker.evaluate("""
            appex.menuClicked({ menuItemId: "selection|action|com.example.texttools.wordcount", selectionText: "one two three" },
                              await chrome.tabs.get(\(tab)))
            """, as: Bool?.self)
        let replaced = try await page.evaluate("document.getElementById('words').textContent", as: String.self)
        #expect(replaced.contains("3 words"), "\(replaced)")
        #expect(try await page.evaluate("document.body.lastElementChild.textContent", as: String.self) == "after", "only the selection changed")
        #expect(try await session.worker.evaluate("chrome.action.getBadgeText({ tabId: \(tab) })", as: String.self) == "")
    }

    /// An entry whose extension doesn't accept what was clicked runs nothing, and the badge says so.
    @Test func anEntryForContentItRefusesRunsNothing() async throws {
        let session = try await BrowserSession()
        let (page, tab) = try await session.open(Self.page, at: "/refused.html")
        _ = try await session.worker.evaluate("""
            appex.menuClicked({ menuItemId: "link|action|com.example.texttools.wordcount", linkUrl: "https://swift.org/" }, await chrome.tabs.get(\(tab)))
            """, as: Bool?.self)
        #expect(try await session.worker.evaluate("chrome.action.getBadgeText({ tabId: \(tab) })", as: String.self) == "!")
        #expect(try await session.worker.evaluate("chrome.action.getTitle({ tabId: \(tab) })", as: String.self).contains("does not accept this link"))
        #expect(try await page.evaluate("document.getElementById('words').textContent", as: String.self) == "one two three")
    }
}

/// A Share extension chosen from the context menu opens the popup in a window of its own,
/// which starts it at once and shows its compose sheet.
@Suite(.needsChromium)
final class ContextMenuShareTests {
    @Test func aShareExtensionOpensItsSheetInAWindow() async throws {
        let session = try await BrowserSession()
        let (_, tab) = try await session.open(ContextMenuTests.page, at: "/share-link.html")
        _ = try await session.worker.evaluate("""
            appex.menuClicked({ menuItemId: "link|share|com.example.notes.share", linkUrl: "https://swift.org/" }, await chrome.tabs.get(\(tab)))
                .then(() => true)
            """, as: Bool.self)
        let window = try await session.chromium.target(ofType: "page", urlPrefix: "chrome-extension://\(BrowserExtension.chromiumID)/popup.html?")
        try await window.waitFor("!document.getElementById('sheet').hidden", timeout: .seconds(30))
        #expect(try await window.evaluate("document.getElementById('heading').textContent", as: String.self) == "Add to Notes")
        _ = try await window.evaluate("""
            (() => { const text = document.getElementById('sheet-text'); text.value = 'Read later';
                     text.dispatchEvent(new Event('input')); return true; })()
            """, as: Bool.self)
        try await window.waitFor("!document.getElementById('sheet-post').disabled && document.getElementById('sheet-count').textContent === '490'")
        _ = try await window.evaluate("document.getElementById('sheet-post').click()", as: Bool?.self)
        try await window.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(30))
        #expect(try await window.evaluate("document.body.dataset.outcome", as: String.self) == "completed")
        let folder = session.test.home.dataDirectory.appendingPathComponent("Groups/group.com.example.notes/Shared Notes")
        let notes = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(notes.count == 1)
        #expect(try String(contentsOf: folder.appendingPathComponent(notes[0]), encoding: .utf8) == "Read later\nhttps://swift.org/", "the link, not the page")
    }
}

/// An image from the context menu goes to the extension as its bytes, with its type.
@Suite(.needsChromium)
final class ContextMenuImageTests {
    /// A PNG of one red pixel.
    static let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")!

    @Test func anImageIsSentAsItsBytesToAnExtensionThatTakesImages() async throws {
        let session = try await BrowserSession()
        session.server.serve(Self.png, at: "/photo.png", contentType: "image/png")
        let (_, tab) = try await session.open(#"<!doctype html><html><head><title>Photo</title></head><body><img src="/photo.png"></body></html>"#, at: "/photo.html")
        let photos = try await session.worker.evaluate("""
            appex.list({ kind: "image", url: "https://example.com/", image: { url: "https://example.com/a.png", type: "image/png" } })
                .then((extensions) => extensions.map((extension) => extension.identifier))
            """, as: [String].self)
        #expect(photos.contains("com.example.photos.share") && !photos.contains("com.example.texttools.pagecolour"), "\(photos)")
        _ = try await session.worker.evaluate("""
            appex.menuClicked({ menuItemId: "image|share|com.example.photos.share", mediaType: "image", srcUrl: \(Chromium.literal(session.url("/photo.png"))) },
                              await chrome.tabs.get(\(tab))).then(() => true)
            """, as: Bool.self)
        let window = try await session.chromium.target(ofType: "page", urlPrefix: "chrome-extension://\(BrowserExtension.chromiumID)/popup.html?")
        try await window.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(30))
        let status = try await window.evaluate("document.getElementById('status').textContent", as: String.self)
        #expect(try await window.evaluate("document.body.dataset.outcome", as: String.self) == "completed", "\(status)")
        let containers = session.test.home.containersDirectory.appendingPathComponent("com.example.photos.share")
        let files = FileManager.default.enumerator(at: containers, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let saved = try #require(files.first { $0.deletingLastPathComponent().lastPathComponent == "Album" }, "\(files)")
        #expect(saved.lastPathComponent == "photo.png")
        #expect(try Data(contentsOf: saved) == Self.png)
    }
}
