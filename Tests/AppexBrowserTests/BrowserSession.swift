import AppexBrowser
import AppexCore
import AppexBrowserTesting
import AppexSamples
import AppexTestServer
import AppexTesting
import Foundation
import Glibc

/// A private Appex home with the samples installed, set up for the browser with
/// `appex browser install`, and a real headless Chromium with the Appex extension loaded
/// from where that command copied it, its user scripts allowed; and a loopback server for
/// the pages. Everything is stopped when it goes away.
final class BrowserSession {
    let test: TestHome
    let appex: CommandRunner
    let server: LoopbackHTTPServer
    let chromium: Chromium
    let worker: DevToolsTarget

    init(allowingUserScripts: Bool = true) async throws {
        test = try TestHome()
        try FileManager.default.createDirectory(at: test.scratch, withIntermediateDirectories: true)
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: test.environment)
        for app in try await AssembledSamples.apps() {
            let installed = try await appex.run(["install", app.path])
            guard installed.status == 0 else { throw DevToolsError("install failed: \(installed.standardError)") }
        }
        let profile = test.scratch.appendingPathComponent("chromium")
        let setUp = try await appex.run(["browser", "install", "--chromium", "--user-data-dir", profile.path])
        guard setUp.status == 0 else { throw DevToolsError("appex browser install failed: \(setUp.standardError)") }
        server = try await LoopbackHTTPServer.start()
        chromium = try await Chromium.launch(profile: profile, extensions: [BrowserSetup(appex: test.home).chromiumExtensionFolder],
                                             environment: ["APPEX_HOME": test.home.dataDirectory.path])
        if allowingUserScripts { try await chromium.allowUserScripts(forExtension: BrowserExtension.chromiumID) }
        worker = try await chromium.serviceWorker(ofExtension: BrowserExtension.chromiumID)
    }

    deinit {
        // Closing waits for the browser, which must not hold a thread of the cooperative pool.
        let chromium = chromium
        Thread { chromium.close() }.start()
        let server = server
        Task { await server.stop() }
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    /// The URL of `path` on the loopback server.
    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// Serves `html` at `path` and opens it in a tab; returns the tab and its id for the extension.
    func open(_ html: String, at path: String, headers: [String: String] = [:]) async throws -> (page: DevToolsTarget, tab: Int) {
        server.serve(html, at: path, headers: headers)
        let page = try await chromium.open(url(path))
        return (page, try await tabID(of: url(path)))
    }

    /// The extension's id for the tab showing `url`, asked from a page of the extension's own
    /// (its manifest, shown as a page), where `chrome.tabs` answers from the browser: not from
    /// its service worker, which Chromium stops and starts again as it likes, and which the
    /// popup wakes when it connects, as it does for a user.
    func tabID(of url: String, timeout: Duration = .seconds(30)) async throws -> Int {
        let query = "(await chrome.tabs.query({})).find((tab) => tab.url === \(Chromium.literal(url)))?.id ?? -1"
        let page = try await chromium.open("chrome-extension://\(BrowserExtension.chromiumID)/manifest.json")
        defer { page.close() }
        try await page.waitFor("(\(query)) >= 0", timeout: timeout)
        return try await page.evaluate(query, as: Int.self)
    }

    /// Opens the extension's popup for tab `tab` in a tab of its own, as the toolbar button
    /// opens it over the page, and waits for its list.
    func popup(for tab: Int) async throws -> DevToolsTarget {
        let popup = try await chromium.open("chrome-extension://\(BrowserExtension.chromiumID)/popup.html?tab=\(tab)", width: 420, height: 480)
        try await popup.waitFor("document.getElementById('extensions').hidden === false || document.getElementById('status').textContent.startsWith('No ')")
        return popup
    }

    /// The identifiers the popup lists, in order.
    func listed(in popup: DevToolsTarget) async throws -> [String] {
        try await popup.evaluate("[...document.querySelectorAll('#extensions button')].map((button) => button.dataset.identifier)", as: [String].self)
    }

    /// Clicks `identifier` in the popup and waits for the outcome; returns it and the status line.
    func choose(_ identifier: String, in popup: DevToolsTarget) async throws -> (outcome: String, status: String) {
        _ = try await popup.evaluate("document.querySelector(`[data-identifier=\"\(identifier)\"]`).click()", as: Bool?.self)
        try await popup.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(60))
        let outcome = try await popup.evaluate("document.body.dataset.outcome", as: String.self)
        return (outcome, try await popup.evaluate("document.getElementById('status').textContent", as: String.self))
    }

    /// Saves a screenshot of `target` as `name`.png in the test output folder, and returns its path.
    @discardableResult
    func screenshot(_ target: DevToolsTarget, as name: String) async throws -> URL {
        let folder = AppexBuild.products.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("test-output/browser")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("\(name).png")
        try await target.screenshot().write(to: file)
        return file
    }
}
