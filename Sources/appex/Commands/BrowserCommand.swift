import AppexBrowser
import AppexCore
import ArgumentParser
import Foundation

/// `appex browser`: sets the browser up as a host of Share and Action extensions.
struct BrowserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser",
        abstract: "Set Chromium, Chrome or Firefox up to offer Share and Action extensions on web pages.",
        discussion: "See docs/browser.md.",
        subcommands: [BrowserInstallCommand.self, BrowserUninstallCommand.self]
    )
}

/// Which browsers a browser subcommand acts on.
struct BrowserChoice: ParsableArguments {
    @Flag(help: "Chromium.") var chromium = false
    @Flag(help: "Google Chrome.") var chrome = false
    @Flag(help: "Firefox.") var firefox = false

    @Option(help: "A Chromium profile folder, as Chromium's own --user-data-dir: its native messaging hosts are set up instead of the default profile's.",
            completion: .directory)
    var userDataDir: String?

    /// The browsers named, or Chromium and Firefox when none is.
    var browsers: [Browser] {
        let named = [(chromium, Browser.chromium), (chrome, .chrome), (firefox, .firefox)].filter(\.0).map(\.1)
        return named.isEmpty ? [.chromium, .firefox] : named
    }

    var setup: BrowserSetup {
        BrowserSetup(userDataDirectory: userDataDir.map { URL(fileURLWithPath: $0).standardizedFileURL })
    }
}

struct BrowserInstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install the native messaging host for the browsers, and copy the browser extension to load.",
        discussion: "Without a browser named, sets up Chromium and Firefox. Run it again after moving Appex's programs."
    )

    @OptionGroup var choice: BrowserChoice

    func run() throws {
        guard let host = CompanionProgram.browserHost.locate() else {
            let notFound = CompanionProgram.browserHost.notFound
            throw CommandFailure(status: CommandFailure.trouble, "error: \(notFound.message). \(notFound.suggestion)")
        }
        let setup = choice.setup
        let written: [URL]
        do {
            written = try setup.install(choice.browsers, hostPath: URL(fileURLWithPath: host).standardizedFileURL.path)
        } catch {
            throw CommandFailure(status: CommandFailure.trouble, "error: \(error)")
        }
        for (browser, file) in zip(choice.browsers, written) {
            print("\(browser.displayName): wrote \(file.path)")
        }
        print("")
        if choice.browsers.contains(where: { $0 != .firefox }) {
            print("""
                To load the extension in Chromium or Chrome:
                  1. open chrome://extensions and turn on Developer mode;
                  2. choose "Load unpacked" and pick \(setup.chromiumExtensionFolder.path);
                  3. in the Appex extension's Details, turn on "Allow User Scripts", so it can run an extension's
                     JavaScript preprocessing file in the page.
                """)
        }
        if choice.browsers.contains(.firefox) {
            print("""
                To load the extension in Firefox (\(BrowserExtension.firefoxMinimumVersion) or later):
                  - until Firefox quits: open about:debugging#/runtime/this-firefox, choose "Load Temporary Add-on…"
                    and pick \(setup.firefoxExtensionFolder.appendingPathComponent("manifest.json").path);
                  - to keep it, in Firefox ESR or Developer Edition: set xpinstall.signatures.required to false in
                    about:config, then in about:addons choose "Install Add-on From File…" and pick
                    \(setup.firefoxPackage.path).
                Then open its popup and choose "Allow", so it can run an extension's JavaScript preprocessing file in the page.
                """)
        }
    }
}

struct BrowserUninstallCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall",
        abstract: "Remove the native messaging host's manifests and the copy of the browser extension."
    )

    @OptionGroup var choice: BrowserChoice

    func run() throws {
        let removed = choice.setup.uninstall(choice.browsers)
        if removed.isEmpty { print("Nothing was installed.") }
        for file in removed { print("removed \(file.path)") }
    }
}
