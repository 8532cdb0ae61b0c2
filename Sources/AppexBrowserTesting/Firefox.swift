import AppexCore
public import AppexSystem
public import Foundation
import Glibc

/// A real Firefox, headless, driven over Marionette: for the browser host's tests on
/// Firefox (docs/browser.md, "Firefox").
///
/// The profile fixes the Appex extension's internal UUID, so its pages have a known
/// address, and lets an extension's optional permissions be granted without a prompt, as a
/// click on the browser's own prompt would grant them.
public final class Firefox: Sendable {
    public let process: ProcessDescriptor
    public let marionette: Marionette
    /// The profile folder; the browser's output goes to `firefox.log` in it.
    public let profile: URL

    /// The internal UUID of the Appex extension's pages in the profile.
    public static let extensionUUID = "0b7e57a1-0000-4000-8000-00000000a9e1"

    private init(process: ProcessDescriptor, marionette: Marionette, profile: URL) {
        self.process = process
        self.marionette = marionette
        self.profile = profile
    }

    /// The Firefox program, found as Appex finds its own programs: `APPEX_FIREFOX`, or
    /// `firefox-esr`, else `firefox`, beside this program or on `PATH`; nil if none.
    public static var executable: String? {
        ["firefox-esr", "firefox"].lazy.compactMap { CompanionProgram(name: $0, variable: "APPEX_FIREFOX").locate() }.first
    }

    /// Starts a headless Firefox with a new profile at `profile`, for the extension
    /// `extensionID`, with `environment` added to this process's (`HOME` decides where it
    /// looks for native messaging hosts).
    public static func launch(profile: URL, extensionID: String, environment: [String: String] = [:]) async throws -> Firefox {
        guard let executable else { throw DevToolsError("Firefox is not installed: install Debian's firefox-esr package, or set APPEX_FIREFOX") }
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let uuids = String(decoding: try JSONSerialization.data(withJSONObject: [extensionID: extensionUUID]), as: UTF8.self)
        let preferences = [
            ("marionette.port", "0"), ("extensions.webextensions.uuids", Chromium.literal(uuids)),
            ("extensions.webextOptionalPermissionPrompts", "false"), ("browser.shell.checkDefaultBrowser", "false"),
            ("datareporting.policy.dataSubmissionEnabled", "false"), ("toolkit.telemetry.reportingpolicy.firstRun", "false"),
            ("app.update.enabled", "false"), ("browser.startup.homepage_override.mstone", "\"ignore\""),
        ]
        try preferences.map { "user_pref(\"\($0.0)\", \($0.1));\n" }.joined().write(to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
        let log = try FileDescriptor.open(profile.appendingPathComponent("firefox.log").path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND)
        let process = try ProcessLaunch(
            executable: executable,
            arguments: ["--headless", "--no-remote", "--profile", profile.path, "--marionette", "--remote-allow-system-access", "about:blank"],
            environment: ProcessInfo.processInfo.environment.merging(environment) { _, given in given },
            descriptors: [(log, 1), (log, 2)], diesWithParent: true
        ).spawn()
        log.close()
        let portFile = profile.appendingPathComponent("MarionetteActivePort")
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
               let marionette = try? Marionette(port: port) {
                let firefox = Firefox(process: process, marionette: marionette, profile: profile)
                do {
                    try marionette.call("WebDriver:NewSession", ["capabilities": ["alwaysMatch": ["moz:webdriverClick": true]]])
                } catch {
                    firefox.close()
                    throw error
                }
                return firefox
            }
            guard ContinuousClock.now < deadline, !process.hasExited else {
                process.end(graceMilliseconds: 0)
                throw DevToolsError("Firefox did not start Marionette; its log: \((try? String(contentsOf: profile.appendingPathComponent("firefox.log"), encoding: .utf8))?.suffix(2000) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Grants extension `id` the optional permission `permission` (`userScripts`), as the
    /// user does when the extension asks; done before the extension is installed, so that
    /// it starts with it.
    public func grant(_ permission: String, to id: String) throws {
        try marionette.call("Marionette:SetContext", ["value": "chrome"])
        defer { _ = try? marionette.call("Marionette:SetContext", ["value": "content"]) }
        let granted = try marionette.call("WebDriver:ExecuteAsyncScript", ["script": """
            const resolve = arguments[arguments.length - 1];
            const { ExtensionPermissions } = ChromeUtils.importESModule("resource://gre/modules/ExtensionPermissions.sys.mjs");
            ExtensionPermissions.add(\(Chromium.literal(id)), { permissions: [\(Chromium.literal(permission))], origins: [] })
                .then(() => resolve(true), (error) => resolve(String(error)));
            """])
        guard granted.value as? Bool == true else { throw DevToolsError("can't grant \(permission) to \(id): \(granted.value ?? "")") }
    }

    /// Installs the extension in `folder` until the browser quits, as about:debugging's
    /// "Load Temporary Add-on" does.
    public func installTemporarily(_ folder: URL) throws {
        try marionette.call("Addon:Install", ["path": folder.path, "temporary": true])
    }

    /// The address of the extension's page `path`.
    public static func extensionPage(_ path: String) -> String {
        "moz-extension://\(extensionUUID)/\(path)"
    }

    /// Opens `url` in a new tab, makes it the current one, and waits for it to load; returns its window handle.
    public func open(_ url: String) throws -> String {
        let handle = try marionette.call("WebDriver:NewWindow", ["type": "tab"])
        guard let window = (handle.value as? [String: Any])?["handle"] as? String else { throw DevToolsError("no new tab") }
        try switchTo(window)
        try marionette.call("WebDriver:Navigate", ["url": url])
        return window
    }

    /// Makes window `handle` the current one.
    public func switchTo(_ handle: String) throws {
        try marionette.call("WebDriver:SwitchToWindow", ["handle": handle])
    }

    /// Evaluates `expression` in the current tab, awaiting a promise, and decodes its value.
    public func evaluate<Value: Decodable>(_ expression: String, as type: Value.Type) throws -> Value {
        let result = try marionette.call("WebDriver:ExecuteAsyncScript", ["script": """
            const resolve = arguments[arguments.length - 1];
            (async () => JSON.stringify(await (\(expression))) ?? "null")().then(resolve, (error) => resolve(JSON.stringify({ __thrown: String(error) })));
            """])
        guard let json = result.value as? String else { throw DevToolsError("\(expression.prefix(120)) gave no value") }
        if let thrown = (try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)))?["__thrown"] {
            throw DevToolsError("\(expression.prefix(120)) threw: \(thrown)")
        }
        return try JSONDecoder().decode(Value.self, from: Data(json.utf8))
    }

    /// Waits until `condition` is true in the current tab.
    public func waitFor(_ condition: String, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            if (try? evaluate("Boolean(\(condition))", as: Bool.self)) == true { return }
            guard ContinuousClock.now < deadline else { throw DevToolsError("\(condition) was not true within \(timeout)") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Clicks the element `selector` finds in the current tab, as a user's click: a trusted
    /// event, with the user activation a permission request needs.
    public func click(_ selector: String) throws {
        let found = try marionette.call("WebDriver:FindElement", ["using": "css selector", "value": selector])
        guard let element = found.value as? [String: Any], let id = element.values.first as? String else { throw DevToolsError("no element \(selector)") }
        try marionette.call("WebDriver:ElementClick", ["id": id])
    }

    /// A PNG of the current tab.
    public func screenshot() throws -> Data {
        guard let encoded = try marionette.call("WebDriver:TakeScreenshot", ["full": false]).value as? String,
              let png = Data(base64Encoded: encoded) else { throw DevToolsError("no screenshot") }
        return png
    }

    /// Quits the browser, and kills it if it doesn't quit within 10 s.
    public func close() {
        _ = try? marionette.call("Marionette:Quit", ["flags": ["eForceQuit"]])
        process.end(graceMilliseconds: 10_000)
    }
}
