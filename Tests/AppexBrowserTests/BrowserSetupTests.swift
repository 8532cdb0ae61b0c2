import AppexBrowser
import AppexCore
import AppexSamples
import AppexTesting
import Foundation
import Testing

/// `appex browser install` and `uninstall`, run as a user runs them, with a home folder of
/// the test's own: the manifests in each browser's format, and the extension copied.
@Suite struct BrowserSetupTests {
    @Test func installWritesEachBrowsersManifestAndUninstallRemovesThem() async throws {
        let test = try TestHome()
        let userHome = test.scratch.appendingPathComponent("user")
        try FileManager.default.createDirectory(at: userHome, withIntermediateDirectories: true)
        var environment = test.environment
        environment["HOME"] = userHome.path
        let appex = CommandRunner(executable: AppexBuild.products.appendingPathComponent("appex"), environment: environment)

        let before = try await appex.run(["doctor"])
        #expect(before.standardOutput.contains("no native messaging host; `appex browser install --chromium` sets it up"), "\(before.standardOutput)")

        let installed = try await appex.run(["browser", "install"])
        #expect(installed.status == 0, "\(installed.standardError)")
        let host = AppexBuild.products.appendingPathComponent("appex-browser").standardizedFileURL.path
        let chromium = try manifest(userHome.appendingPathComponent(".config/chromium/NativeMessagingHosts/org.appex.browser.json"))
        #expect(chromium["name"] as? String == "org.appex.browser" && chromium["type"] as? String == "stdio")
        #expect(chromium["path"] as? String == host)
        #expect(chromium["allowed_origins"] as? [String] == ["chrome-extension://\(BrowserExtension.chromiumID)/"] && chromium["allowed_extensions"] == nil)
        let firefox = try manifest(userHome.appendingPathComponent(".mozilla/native-messaging-hosts/org.appex.browser.json"))
        #expect(firefox["path"] as? String == host)
        #expect(firefox["allowed_extensions"] as? [String] == [BrowserExtension.firefoxID] && firefox["allowed_origins"] == nil)
        let copied = test.home.dataDirectory.appendingPathComponent("browser/chromium/manifest.json")
        #expect(FileManager.default.fileExists(atPath: copied.path))
        #expect(installed.standardOutput.contains("Load unpacked") && installed.standardOutput.contains(copied.deletingLastPathComponent().path))
        let forFirefox = try manifest(test.home.dataDirectory.appendingPathComponent("browser/firefox/manifest.json"))
        #expect((forFirefox["browser_specific_settings"] as? [String: [String: String]])?["gecko"]?["id"] == BrowserExtension.firefoxID)
        #expect(forFirefox["key"] == nil && (forFirefox["background"] as? [String: Any])?["scripts"] as? [String] == ["background.js"])
        #expect(forFirefox["optional_permissions"] as? [String] == ["userScripts"] && !(forFirefox["permissions"] as? [String] ?? []).contains("userScripts"))
        let package = test.home.dataDirectory.appendingPathComponent("browser/appex-firefox.xpi")
        let listing = try await CommandRunner(executable: URL(fileURLWithPath: "/usr/bin/python3"), environment: environment)
            .run(["-c", "import sys, zipfile; print(sorted(zipfile.ZipFile(sys.argv[1]).namelist()))", package.path])
        #expect(listing.standardOutput.contains("'manifest.json'") && listing.standardOutput.contains("'background.js'") && !listing.standardOutput.contains("/manifest.json"),
                "the manifest at the package's top: \(listing.standardOutput)")

        let after = try await appex.run(["doctor"])
        #expect(after.standardOutput.contains("org.appex.browser.json starts \(host)"), "\(after.standardOutput)")
        #expect(after.standardOutput.contains("to load unpacked"))

        let setup = BrowserSetup(userHome: userHome, appex: test.home)
        #expect(setup.status(of: .chromium) == .installed(manifest: setup.manifestURL(for: .chromium), host: host))
        #expect(setup.status(of: .chrome) == .notInstalled)

        let removed = try await appex.run(["browser", "uninstall", "--firefox"])
        #expect(removed.status == 0 && setup.status(of: .firefox) == .notInstalled)
        #expect(FileManager.default.fileExists(atPath: copied.path), "Chromium still uses its extension")
        #expect(!FileManager.default.fileExists(atPath: package.path), "no browser uses Firefox's")
        _ = try await appex.run(["browser", "uninstall"])
        #expect(setup.status(of: .chromium) == .notInstalled && !FileManager.default.fileExists(atPath: copied.path))
    }

    @Test func aManifestForAnotherExtensionIsReportedBroken() throws {
        let test = try TestHome()
        let setup = BrowserSetup(userHome: test.scratch, appex: test.home)
        let file = setup.manifestURL(for: .chromium)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var other = NativeMessagingManifest(for: .chromium, hostPath: "/bin/true")
        other.allowedOrigins = ["chrome-extension://aaaabbbbccccddddeeeeffffgggghhhh/"]
        try other.json.write(to: file)
        guard case .broken(_, let reason) = setup.status(of: .chromium) else {
            Issue.record("not reported")
            return
        }
        #expect(reason.contains("allows another extension"))
    }

    /// The version the host says is the extension's own.
    @Test func theHostsVersionIsTheExtensions() throws {
        let manifest = try manifest(BrowserExtension.folder.appendingPathComponent("manifest.json"))
        #expect(manifest["version"] as? String == BrowserExtension.version)
        #expect(manifest["manifest_version"] as? Int == 3)
    }

    func manifest(_ file: URL) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    }
}
