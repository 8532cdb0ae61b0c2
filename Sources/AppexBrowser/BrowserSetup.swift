public import AppexCore
import AppexSystem
public import Foundation
import Glibc

/// What `appex browser install` does and `appex doctor` checks: the native messaging
/// manifests in each browser's folder, and a copy of the browser extension for each
/// browser in Appex's data folder (Firefox's packed too), where it stays put across builds
/// for the browser to load.
public struct BrowserSetup: Sendable {
    /// The user's home folder, under which browsers keep their settings.
    public var userHome: URL
    /// A Chromium profile folder given with `--user-data-dir`, whose hosts folder is used
    /// for Chromium and Chrome instead of the default one.
    public var userDataDirectory: URL?
    public var appex: AppexHome

    public init(userHome: URL? = nil, userDataDirectory: URL? = nil, appex: AppexHome = .current) {
        self.userHome = userHome ?? Self.currentUserHome
        self.userDataDirectory = userDataDirectory
        self.appex = appex
    }

    /// `$HOME`, as the browsers read it, or else the account's home folder.
    public static var currentUserHome: URL {
        if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") { return URL(fileURLWithPath: home) }
        return FileManager.default.homeDirectoryForCurrentUser
    }

    /// Where the Chromium extension is copied, to load unpacked (Chromium and Chrome).
    public var chromiumExtensionFolder: URL { appex.dataDirectory.appendingPathComponent("browser/chromium") }

    /// Where the Firefox extension is written, unpacked: its `manifest.json` is what
    /// about:debugging's "Load Temporary Add-on" takes.
    public var firefoxExtensionFolder: URL { appex.dataDirectory.appendingPathComponent("browser/firefox") }

    /// The Firefox extension packed, to install from a file where unsigned add-ons are allowed.
    public var firefoxPackage: URL { appex.dataDirectory.appendingPathComponent("browser/appex-firefox.xpi") }

    /// The folder `browser`'s extension is loaded from.
    public func extensionFolder(for browser: Browser) -> URL {
        browser == .firefox ? firefoxExtensionFolder : chromiumExtensionFolder
    }

    /// The native messaging manifest's path for `browser`.
    public func manifestURL(for browser: Browser) -> URL {
        browser.hostsFolder(home: userHome, userDataDirectory: userDataDirectory).appendingPathComponent(NativeMessagingManifest.fileName)
    }

    /// Writes the manifests of `browsers`, naming the host at `hostPath`, and each one's
    /// extension; returns the manifests written.
    public func install(_ browsers: [Browser], hostPath: String) throws(BrowserSetupError) -> [URL] {
        guard hostPath.hasPrefix("/"), FileManager.default.isExecutableFile(atPath: hostPath) else {
            throw BrowserSetupError("\(hostPath) is not an executable at an absolute path; a browser starts the host by its path")
        }
        var written: [URL] = []
        for browser in browsers {
            let file = manifestURL(for: browser)
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try NativeMessagingManifest(for: browser, hostPath: hostPath).json.write(to: file, options: .atomic)
            } catch {
                throw BrowserSetupError("can't write \(file.path) for \(browser.displayName): \(FileErrorText.describe(error))")
            }
            written.append(file)
        }
        if browsers.contains(where: { $0 != .firefox }) { try copyExtension(to: chromiumExtensionFolder, manifest: nil) }
        if browsers.contains(.firefox) {
            let manifest: Data
            do {
                manifest = try BrowserExtension.firefoxManifest()
            } catch {
                throw BrowserSetupError("can't make the Firefox extension's manifest: \(FileErrorText.describe(error))")
            }
            try copyExtension(to: firefoxExtensionFolder, manifest: manifest)
            try pack(firefoxExtensionFolder, into: firefoxPackage)
        }
        return written
    }

    /// Copies the extension to `folder`, replacing what is there in one step, with
    /// `manifest` for its manifest when given.
    private func copyExtension(to folder: URL, manifest: Data?) throws(BrowserSetupError) {
        do {
            let staging = folder.deletingLastPathComponent().appendingPathComponent(".\(folder.lastPathComponent)-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: staging.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: BrowserExtension.folder, to: staging)
            if let manifest { try manifest.write(to: staging.appendingPathComponent("manifest.json")) }
            if FileManager.default.fileExists(atPath: folder.path) {
                _ = try FileManager.default.replaceItemAt(folder, withItemAt: staging)
            } else {
                try FileManager.default.moveItem(at: staging, to: folder)
            }
        } catch {
            throw BrowserSetupError("can't copy the browser extension to \(folder.path): \(FileErrorText.describe(error))")
        }
    }

    /// Zips `folder`'s files, its manifest at the top, into `package`, as Firefox's add-ons are packed.
    private func pack(_ folder: URL, into package: URL) throws(BrowserSetupError) {
        let partial = package.deletingLastPathComponent().appendingPathComponent(".\(package.lastPathComponent)-\(UUID().uuidString.prefix(8))")
        do {
            let output = try FileDescriptor.open(partial.path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
            defer { output.close() }
            let source = try ConfinedFolder(trusted: folder.path)
            try FolderZip(limits: FolderZip.zipLimits).write(source, as: nil, to: output)
            if rename(partial.path, package.path) != 0 { throw SystemError("rename", subject: partial.path) }
        } catch {
            unlink(partial.path)
            throw BrowserSetupError("can't pack \(folder.path) into \(package.path): \(error)")
        }
    }

    /// Removes the manifests of `browsers`, and each extension once no browser uses it;
    /// returns what was removed.
    public func uninstall(_ browsers: [Browser]) -> [URL] {
        var removed: [URL] = []
        for file in browsers.map(manifestURL(for:)) where (try? FileManager.default.removeItem(at: file)) != nil {
            removed.append(file)
        }
        var unused: [URL] = []
        if [Browser.chromium, .chrome].allSatisfy({ status(of: $0) == .notInstalled }) { unused.append(chromiumExtensionFolder) }
        if status(of: .firefox) == .notInstalled { unused += [firefoxExtensionFolder, firefoxPackage] }
        for file in unused where (try? FileManager.default.removeItem(at: file)) != nil {
            removed.append(file)
        }
        return removed
    }

    /// How `browser` is set up.
    public enum Status: Sendable, Hashable {
        /// The manifest names this host, which is there.
        case installed(manifest: URL, host: String)
        /// No manifest.
        case notInstalled
        /// A manifest that can't be used, and why.
        case broken(manifest: URL, reason: String)
    }

    /// Whether `browser` can start the host.
    public func status(of browser: Browser) -> Status {
        let file = manifestURL(for: browser)
        guard let data = FileManager.default.contents(atPath: file.path) else { return .notInstalled }
        guard let manifest = try? JSONDecoder().decode(NativeMessagingManifest.self, from: data) else {
            return .broken(manifest: file, reason: "it is not a native messaging manifest; run `appex browser install` again")
        }
        let expected = NativeMessagingManifest(for: browser, hostPath: manifest.path)
        guard manifest.allowedOrigins == expected.allowedOrigins, manifest.allowedExtensions == expected.allowedExtensions else {
            return .broken(manifest: file, reason: "it allows another extension than Appex's; run `appex browser install` again")
        }
        guard FileManager.default.isExecutableFile(atPath: manifest.path) else {
            return .broken(manifest: file, reason: "its host \(manifest.path) is gone; run `appex browser install` again")
        }
        return .installed(manifest: file, host: manifest.path)
    }
}

/// Why the browser side can't be set up.
public struct BrowserSetupError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
