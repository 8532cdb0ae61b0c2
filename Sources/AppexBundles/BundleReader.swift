import AppexCore
public import Foundation

/// Reads a containing app and its extensions from disk, and checks each bundle on its own:
/// its Info.plist, entitlements, localisations, executable and files.
///
/// Cross-bundle rules (identifiers, points, activation rules) are ``BundleValidator``'s.
public struct BundleReader: Sendable {
    public init() {}

    /// Reads the `.app` folder at `url`. Never throws: every problem becomes a diagnostic.
    public func read(appAt url: URL) -> BundleInspection {
        let root = url.standardizedFileURL
        let name = root.lastPathComponent
        var diagnostics: [Diagnostic] = []
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            diagnostics.append(Diagnostic(.error, "not-found", file: root.path, "is not a folder", hint: "give the path of an .app bundle"))
            return BundleInspection(bundle: nil, diagnostics: diagnostics)
        }
        if name.hasSuffix(BundleLayout.extensionSuffix) {
            diagnostics.append(Diagnostic(
                .error, "extension-outside-app", file: name, "is an extension on its own, outside any containing app",
                hint: "put it in an app's \(BundleLayout.plugIns)/ folder and give the app's path; an extension ships only inside its app"
            ))
            return BundleInspection(bundle: nil, diagnostics: diagnostics)
        }
        guard name.hasSuffix(BundleLayout.appSuffix) else {
            diagnostics.append(Diagnostic(
                .error, "not-an-app-bundle", file: name, "is not an .app bundle",
                hint: "a containing app is a folder named NAME.app with an Info.plist; `appex bundle` makes one"
            ))
            return BundleInspection(bundle: nil, diagnostics: diagnostics)
        }
        let tree = BundleTree(root: root, displayRoot: name)
        diagnostics += tree.diagnostics
        let app = readBundle(at: root, display: name, role: .application, tree: tree, diagnostics: &diagnostics)
        var extensions: [ExtensionBundle] = []
        for entry in tree.entries where entry.kind == .directory && isPlugIn(entry.path) {
            let display = name + "/" + entry.path
            let url = root.appendingPathComponent(entry.path)
            if let plugIn = readBundle(at: url, display: display, role: .appExtension, tree: tree, diagnostics: &diagnostics),
                let manifest = plugIn.info.extensionManifest
            {
                extensions.append(ExtensionBundle(
                    url: url, info: plugIn.info, manifest: manifest, entitlements: plugIn.entitlements,
                    localizedStrings: plugIn.localizedStrings
                ))
            }
        }
        for entry in tree.entries where entry.path.hasPrefix(BundleLayout.plugIns + "/") && entry.path.split(separator: "/").count == 2
            && !(entry.kind == .directory && entry.path.hasSuffix(BundleLayout.extensionSuffix))
        {
            diagnostics.append(Diagnostic(
                .warning, "unexpected-plugin", file: name + "/" + entry.path, "is not an .appex bundle, so it is ignored",
                hint: "\(BundleLayout.plugIns)/ holds only extensions"
            ))
        }
        guard let app else { return BundleInspection(bundle: nil, diagnostics: diagnostics) }
        let frameworks = tree.entries
            .filter { $0.path.hasPrefix(BundleLayout.frameworks + "/") && $0.kind != .directory }
            .map { String($0.path.dropFirst(BundleLayout.frameworks.count + 1)) }
        let bundle = AppBundle(
            url: root, info: app.info, entitlements: app.entitlements, localizedStrings: app.localizedStrings,
            frameworks: frameworks, extensions: extensions
        )
        return BundleInspection(bundle: bundle, diagnostics: diagnostics)
    }

    private func isPlugIn(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        return components.count == 2 && components[0] == Substring(BundleLayout.plugIns)
            && components[1].hasSuffix(BundleLayout.extensionSuffix)
    }

    /// The parts of one bundle, app or extension, that are read the same way.
    private struct Parts {
        var info: BundleInfo
        var entitlements: Entitlements
        var localizedStrings: [String: [String: String]]
    }

    private func readBundle(
        at url: URL, display: String, role: BundleInfo.Role, tree: BundleTree, diagnostics: inout [Diagnostic]
    ) -> Parts? {
        let infoFile = display + "/" + BundleLayout.infoPlist
        guard let plist = readPropertyList(url.appendingPathComponent(BundleLayout.infoPlist), display: infoFile, required: true, diagnostics: &diagnostics),
            let info = BundleInfo.read(plist, role: role, file: infoFile, diagnostics: &diagnostics)
        else { return nil }
        let entitlementsFile = display + "/" + BundleLayout.entitlementsPlist
        let entitlements = readPropertyList(
            url.appendingPathComponent(BundleLayout.entitlementsPlist), display: entitlementsFile, required: false, diagnostics: &diagnostics
        ).map { Entitlements.read($0, file: entitlementsFile, diagnostics: &diagnostics) } ?? .none
        checkExecutable(info.executable, in: url, display: display, role: role, diagnostics: &diagnostics)
        if role == .appExtension {
            for folder in [BundleLayout.plugIns, BundleLayout.frameworks]
            where FileManager.default.fileExists(atPath: url.appendingPathComponent(folder).path) {
                diagnostics.append(Diagnostic(
                    .error, folder == BundleLayout.plugIns ? "nested-extension" : "frameworks-in-extension",
                    file: display + "/" + folder, "is inside an extension, which may hold neither extensions nor frameworks",
                    hint: "put extensions and shared libraries in the containing app's \(folder)/ folder"
                ))
            }
        }
        return Parts(
            info: info, entitlements: entitlements,
            localizedStrings: readLocalizations(in: url, display: display, diagnostics: &diagnostics)
        )
    }

    private func readPropertyList(_ url: URL, display: String, required: Bool, diagnostics: inout [Diagnostic]) -> PropertyListValue? {
        let path = url.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            if required {
                diagnostics.append(Diagnostic(.error, "missing-file", file: display, "is missing", hint: "every bundle needs an Info.plist"))
            }
            return nil
        }
        do {
            guard !isDirectory.boolValue else {
                throw PropertyListError(.malformed, "is a folder, not a file")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            guard size <= PropertyListValue.maximumEncodedSize else {
                throw PropertyListError(.tooLarge, "is \(size) bytes, over the \(PropertyListValue.maximumEncodedSize)-byte limit")
            }
            return try PropertyListValue(decoding: Data(contentsOf: url))
        } catch let error as PropertyListError {
            diagnostics.append(Diagnostic(
                .error, error.code == .tooLarge ? "file-too-large" : "malformed-plist", file: display, error.reason,
                hint: error.code == .tooLarge ? "a property list this large is not accepted" : "fix the syntax; `plutil -lint` shows where"
            ))
        } catch {
            diagnostics.append(Diagnostic(.error, "unreadable", file: display, "can't be read: \(error.localizedDescription)"))
        }
        return nil
    }

    private func checkExecutable(
        _ name: String, in url: URL, display: String, role: BundleInfo.Role, diagnostics: inout [Diagnostic]
    ) {
        guard !name.isEmpty, !name.contains("/") else { return }
        let file = display + "/" + name
        let path = url.appendingPathComponent(name).path
        let what = role == .application ? "the app's executable" : "the extension's executable"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            diagnostics.append(Diagnostic(
                .error, role == .application ? "app-without-executable" : "missing-executable", file: file,
                "is missing; it is \(what), named by CFBundleExecutable",
                hint: role == .application
                    ? "a containing app must do something on its own, so it needs an executable; `appex bundle` copies it in"
                    : "build the extension's product and copy it in; `appex bundle` does this"
            ))
            return
        }
        guard !isDirectory.boolValue else {
            diagnostics.append(Diagnostic(.error, "executable-is-directory", file: file, "is a folder, but it must be \(what)"))
            return
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            diagnostics.append(Diagnostic(.error, "not-executable", file: file, "is not executable", hint: "chmod +x it"))
            return
        }
        let magic = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 4)) ?? Data()
        if magic != Data([0x7F, 0x45, 0x4C, 0x46]), magic.prefix(2) != Data("#!".utf8) {
            diagnostics.append(Diagnostic(
                .error, "not-a-program", file: file, "is neither an ELF executable nor a script",
                hint: "build it for Linux; bundles hold ELF executables"
            ))
        }
    }

    /// The `InfoPlist.strings` tables of the bundle at `url`, by language code; a table that
    /// can't be read is left out (`appex validate` says why).
    public func localizations(in url: URL) -> [String: [String: String]] {
        var ignored: [Diagnostic] = []
        return readLocalizations(in: url, display: url.lastPathComponent, diagnostics: &ignored)
    }

    private func readLocalizations(in url: URL, display: String, diagnostics: inout [Diagnostic]) -> [String: [String: String]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        var tables: [String: [String: String]] = [:]
        for folder in names.sorted() where folder.hasSuffix(BundleLayout.localizationSuffix) {
            let language = String(folder.dropLast(BundleLayout.localizationSuffix.count))
            let file = url.appendingPathComponent(folder).appendingPathComponent(BundleLayout.infoPlistStrings)
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            let shown = display + "/" + folder + "/" + BundleLayout.infoPlistStrings
            do {
                let data = try Data(contentsOf: file)
                guard data.count <= PropertyListValue.maximumEncodedSize else {
                    throw PropertyListError(.tooLarge, "is \(data.count) bytes, over the limit")
                }
                tables[language] = try StringsFile.decode(data)
            } catch let error as PropertyListError {
                diagnostics.append(Diagnostic(
                    .error, "malformed-strings", file: shown, error.reason,
                    hint: "write \"key\" = \"value\"; lines, in UTF-8 or UTF-16 with a byte-order mark"
                ))
            } catch {
                diagnostics.append(Diagnostic(.error, "unreadable", file: shown, "can't be read: \(error.localizedDescription)"))
            }
        }
        return tables
    }
}
