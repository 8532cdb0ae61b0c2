import AppexBrowser
import AppexBrowserTesting
import AppexCore
import AppexSamples
import AppexTestServer
import AppexTesting
import Foundation
import Glibc
import Testing

/// The same extension in a real Firefox (Debian's firefox-esr), headless, driven over
/// Marionette: installed from what `appex browser install --firefox` wrote, with the native
/// host found through the manifest it wrote in the user's home.
final class FirefoxSession {
    let test: TestHome
    let appex: CommandRunner
    let server: LoopbackHTTPServer
    let firefox: Firefox

    init(grantingUserScripts: Bool = true) async throws {
        test = try TestHome()
        let userHome = test.scratch.appendingPathComponent("user")
        try FileManager.default.createDirectory(at: userHome, withIntermediateDirectories: true)
        var environment = test.environment
        environment["HOME"] = userHome.path
        appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: environment)
        for app in try await AssembledSamples.apps() {
            let installed = try await appex.run(["install", app.path])
            guard installed.status == 0 else { throw DevToolsError("install failed: \(installed.standardError)") }
        }
        let setUp = try await appex.run(["browser", "install", "--firefox"])
        guard setUp.status == 0 else { throw DevToolsError("appex browser install failed: \(setUp.standardError)") }
        server = try await LoopbackHTTPServer.start()
        firefox = try await Firefox.launch(profile: test.scratch.appendingPathComponent("firefox"), extensionID: BrowserExtension.firefoxID,
                                           environment: ["HOME": userHome.path, "APPEX_HOME": test.home.dataDirectory.path])
        if grantingUserScripts { try firefox.grant("userScripts", to: BrowserExtension.firefoxID) }
        try firefox.installTemporarily(BrowserSetup(userHome: userHome, appex: test.home).firefoxExtensionFolder)
    }

    deinit {
        // Closing waits for the browser, which must not hold a thread of the cooperative pool.
        let firefox = firefox
        Thread { firefox.close() }.start()
        let server = server
        Task { await server.stop() }
        for pid in test.daemonProcessIDs() { kill(pid, SIGKILL) }
    }

    /// Serves `html` at `path`, opens it in a tab, and returns the tab's window handle and its id for the extension.
    func open(_ html: String, at path: String) async throws -> (window: String, tab: Int) {
        server.serve(html, at: path)
        let url = "http://127.0.0.1:\(server.port)\(path)"
        let window = try firefox.open(url)
        try await firefox.waitFor("document.readyState === 'complete'")
        _ = try firefox.open(Firefox.extensionPage("popup.html?tab=-1"))
        let tab = try firefox.evaluate("(await chrome.tabs.query({})).find((tab) => tab.url === \(Chromium.literal(url)))?.id ?? -1", as: Int.self)
        guard tab >= 0 else { throw DevToolsError("the extension sees no tab for \(path)") }
        return (window, tab)
    }

    /// Shows the popup for tab `tab` in the current tab, and waits for its list.
    func popup(for tab: Int) async throws {
        try firefox.marionette.call("WebDriver:Navigate", ["url": Firefox.extensionPage("popup.html?tab=\(tab)")])
        try await firefox.waitFor("document.getElementById('extensions').hidden === false || document.getElementById('status').textContent.startsWith('No ')")
    }

    /// Clicks `identifier` in the popup and waits for the outcome; returns it and the status line.
    func choose(_ identifier: String) async throws -> (outcome: String, status: String) {
        try firefox.click("[data-identifier=\"\(identifier)\"]")
        try await firefox.waitFor("document.body.dataset.outcome !== undefined", timeout: .seconds(60))
        return (try firefox.evaluate("document.body.dataset.outcome", as: String.self),
                try firefox.evaluate("document.getElementById('status').textContent", as: String.self))
    }
}

/// One Firefox at a time: two started side by side hang their navigations.
@Suite(.needsFirefox, .serialized)
final class FirefoxTests {
    @Test func pageColourTurnsThePageRedInFirefox() async throws {
        let session = try await FirefoxSession()
        let (page, tab) = try await session.open(PageColourTests.page, at: "/plain.html")
        try await session.popup(for: tab)
        #expect(try session.firefox.evaluate("document.getElementById('permission').hidden", as: Bool.self), "the permission was granted")
        let (outcome, status) = try await session.choose(PageColourTests.pageColour)
        #expect(outcome == "completed", "\(status)")
        try session.firefox.switchTo(page)
        #expect(try session.firefox.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(255, 0, 0)")
    }

    /// Without the permission, the popup asks for it; a click on Allow grants it (the
    /// profile takes the grant without the browser's prompt), and the script then runs.
    @Test func thePopupAsksForThePermissionAndThenTheScriptRuns() async throws {
        let session = try await FirefoxSession(grantingUserScripts: false)
        let (page, tab) = try await session.open(PageColourTests.page, at: "/ask.html")
        try await session.popup(for: tab)
        #expect(try session.firefox.evaluate("document.getElementById('permission').hidden", as: Bool.self) == false)
        let refused = try await session.choose(PageColourTests.pageColour)
        #expect(refused.outcome == "error" && refused.status.contains("choose Allow at the top of Appex's popup"), "\(refused.status)")

        try await session.popup(for: tab)
        try session.firefox.click("#allow")
        try await session.firefox.waitFor("document.getElementById('permission').hidden")
        let (outcome, status) = try await session.choose(PageColourTests.pageColour)
        #expect(outcome == "completed", "\(status)")
        try session.firefox.switchTo(page)
        #expect(try session.firefox.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(255, 0, 0)")
    }

    /// Firefox's user-script worlds keep the page out as Chromium's do.
    @Test func aPageCannotReplaceTheScriptInFirefox() async throws {
        let session = try await FirefoxSession()
        let (page, tab) = try await session.open(HostilePageTests.lockingPage, at: "/hostile.html")
        try session.firefox.switchTo(page)
        _ = try session.firefox.evaluate("location.hash = 'colour=blue'", as: String.self)
        _ = try session.firefox.open(Firefox.extensionPage("popup.html?tab=-1"))
        try await session.popup(for: tab)
        let (outcome, status) = try await session.choose(PageColourTests.pageColour)
        #expect(outcome == "completed", "\(status)")
        try session.firefox.switchTo(page)
        #expect(try session.firefox.evaluate("getComputedStyle(document.body).backgroundColor", as: String.self) == "rgb(0, 0, 255)")
    }
}
