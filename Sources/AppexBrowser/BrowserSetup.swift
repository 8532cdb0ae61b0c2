public import AppexCore
public import Foundation

/// What `appex browser install` does and `appex doctor` checks: the native messaging
/// manifests in each browser's folder, and a copy of the browser extension in Appex's data
/// folder, where it stays put across builds for the browser to load.
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

    /// Where the browser extension is copied, to load unpacked.
    public var extensionFolder: URL { appex.dataDirectory.appendingPathComponent("browser/extension") }

    /// The native messaging manifest's path for `browser`.
    public func manifestURL(for browser: Browser) -> URL {
        browser.hostsFolder(home: userHome, userDataDirectory: userDataDirectory).appendingPathComponent(NativeMessagingManifest.fileName)
    }

    /// Writes the manifests of `browsers`, naming the host at `hostPath`, and copies the
    /// browser extension; returns the files written.
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
                throw BrowserSetupError("can't write \(file.path) for \(browser.displayName): \(error.localizedDescription)")
            }
            written.append(file)
        }
        do {
            let staging = extensionFolder.deletingLastPathComponent().appendingPathComponent(".extension-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: staging.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: BrowserExtension.folder, to: staging)
            if FileManager.default.fileExists(atPath: extensionFolder.path) {
                _ = try FileManager.default.replaceItemAt(extensionFolder, withItemAt: staging)
            } else {
                try FileManager.default.moveItem(at: staging, to: extensionFolder)
            }
        } catch {
            throw BrowserSetupError("can't copy the browser extension to \(extensionFolder.path): \(error.localizedDescription)")
        }
        return written
    }

    /// Removes the manifests of `browsers`, and the copy of the extension once no browser
    /// is set up; returns what was removed.
    public func uninstall(_ browsers: [Browser]) -> [URL] {
        var removed: [URL] = []
        for file in browsers.map(manifestURL(for:)) where (try? FileManager.default.removeItem(at: file)) != nil {
            removed.append(file)
        }
        let inUse = Browser.allCases.contains { status(of: $0) != .notInstalled }
        if !inUse, (try? FileManager.default.removeItem(at: extensionFolder)) != nil { removed.append(extensionFolder) }
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
