import AppexCore
import AppexSystem
public import Foundation
import Glibc

/// Reads a containing app and its extensions from disk, and checks each bundle on its own:
/// its Info.plist, entitlements, localisations, executable and files.
///
/// Cross-bundle rules (identifiers, points, activation rules) are ``BundleValidator``'s.
public struct BundleReader: Sendable {
    public init() {}

    /// Reads the `.app` folder at `url`. Never throws: every problem becomes a diagnostic.
    ///
    /// The path is the caller's, so a link there, such as a build folder's, is followed once,
    /// here; the folder it leads to is what is read. Inside the bundle, nothing is read through
    /// a link that leads out of it (``BundleTree``).
    public func read(appAt url: URL) -> BundleInspection {
        let name = url.standardizedFileURL.lastPathComponent
        let root = url.standardizedFileURL.resolvingSymlinksInPath()
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
        let app = readBundle(at: "", display: name, role: .application, tree: tree, diagnostics: &diagnostics)
        var extensions: [ExtensionBundle] = []
        for entry in tree.entries where entry.kind == .directory && isPlugIn(entry.path) {
            let display = name + "/" + entry.path
            let url = root.appendingPathComponent(entry.path)
            if let plugIn = readBundle(at: entry.path, display: display, role: .appExtension, tree: tree, diagnostics: &diagnostics),
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

    /// Reads the bundle at `relative` in the app (`""` for the app itself).
    private func readBundle(
        at relative: String, display: String, role: BundleInfo.Role, tree: BundleTree, diagnostics: inout [Diagnostic]
    ) -> Parts? {
        func inside(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }
        let infoFile = display + "/" + BundleLayout.infoPlist
        guard let plist = readPropertyList(inside(BundleLayout.infoPlist), in: tree, display: infoFile, required: true, diagnostics: &diagnostics),
            let info = BundleInfo.read(plist, role: role, file: infoFile, diagnostics: &diagnostics)
        else { return nil }
        let entitlementsFile = display + "/" + BundleLayout.entitlementsPlist
        let entitlements = readPropertyList(
            inside(BundleLayout.entitlementsPlist), in: tree, display: entitlementsFile, required: false, diagnostics: &diagnostics
        ).map { Entitlements.read($0, file: entitlementsFile, diagnostics: &diagnostics) } ?? .none
        checkExecutable(info.executable, at: inside(info.executable), in: tree, display: display, role: role, diagnostics: &diagnostics)
        if role == .appExtension {
            for folder in [BundleLayout.plugIns, BundleLayout.frameworks] where tree.kind(of: inside(folder)) != nil {
                diagnostics.append(Diagnostic(
                    .error, folder == BundleLayout.plugIns ? "nested-extension" : "frameworks-in-extension",
                    file: display + "/" + folder, "is inside an extension, which may hold neither extensions nor frameworks",
                    hint: "put extensions and shared libraries in the containing app's \(folder)/ folder"
                ))
            }
        }
        var strings: [Diagnostic] = []
        let tables = Self.localizations(in: tree.folder, at: relative, display: display, diagnostics: &strings)
        diagnostics += strings
        return Parts(info: info, entitlements: entitlements, localizedStrings: tables)
    }

    private func readPropertyList(
        _ relative: String, in tree: BundleTree, display: String, required: Bool, diagnostics: inout [Diagnostic]
    ) -> PropertyListValue? {
        guard tree.kind(of: relative) != nil else {
            if required {
                diagnostics.append(Diagnostic(.error, "missing-file", file: display, "is missing", hint: "every bundle needs an Info.plist"))
            }
            return nil
        }
        do {
            guard let folder = tree.folder else { throw SystemError("read", subject: display, errno: ENOENT) }
            return try PropertyListValue(decoding: Self.propertyListData(relative, in: folder))
        } catch let error as PropertyListError {
            diagnostics.append(Diagnostic(
                .error, error.code == .tooLarge ? "file-too-large" : "malformed-plist", file: display, error.reason,
                hint: error.code == .tooLarge ? "a property list this large is not accepted" : "fix the syntax; `plutil -lint` shows where"
            ))
        } catch {
            diagnostics.append(Diagnostic(.error, "unreadable", file: display, "can't be read: \(error)"))
        }
        return nil
    }

    private func checkExecutable(
        _ name: String, at relative: String, in tree: BundleTree, display: String, role: BundleInfo.Role, diagnostics: inout [Diagnostic]
    ) {
        guard !name.isEmpty, !name.contains("/") else { return }
        let file = display + "/" + name
        let what = role == .application ? "the app's executable" : "the extension's executable"
        guard let kind = tree.kind(of: relative) else {
            diagnostics.append(Diagnostic(
                .error, role == .application ? "app-without-executable" : "missing-executable", file: file,
                "is missing; it is \(what), named by CFBundleExecutable",
                hint: role == .application
                    ? "a containing app must do something on its own, so it needs an executable; `appex bundle` copies it in"
                    : "build the extension's product and copy it in; `appex bundle` does this"
            ))
            return
        }
        guard kind != .folder else {
            diagnostics.append(Diagnostic(.error, "executable-is-directory", file: file, "is a folder, but it must be \(what)"))
            return
        }
        guard kind == .file, let opened = try? tree.folder?.openRegularFile(relative, followingLinks: true) else {
            diagnostics.append(Diagnostic(.error, "not-a-program", file: file, "is a device, socket or pipe, but it must be \(what)"))
            return
        }
        defer { opened.close() }
        guard let permissions = try? opened.permissions(), permissions & 0o111 != 0 else {
            diagnostics.append(Diagnostic(.error, "not-executable", file: file, "is not executable", hint: "chmod +x it"))
            return
        }
        let magic = Data((try? opened.read(upTo: 4, at: 0)) ?? [])
        if magic != Data([0x7F, 0x45, 0x4C, 0x46]), magic.prefix(2) != Data("#!".utf8) {
            diagnostics.append(Diagnostic(
                .error, "not-a-program", file: file, "is neither an ELF executable nor a script",
                hint: "build it for Linux; bundles hold ELF executables"
            ))
        }
    }

    /// The file at `relative` in `folder`, read through links that stay inside it, if it is a
    /// regular file within the property-list size limit; else a ``PropertyListError`` that
    /// says what it is, or the error of the file system.
    private static func propertyListData(_ relative: String, in folder: ConfinedFolder) throws -> Data {
        do {
            return try folder.readFile(relative, limit: PropertyListValue.maximumEncodedSize, followingLinks: true)
        } catch {
            switch error.errno {
            case EFBIG: throw PropertyListError(.tooLarge, "is over the \(PropertyListValue.maximumEncodedSize)-byte limit")
            case EISDIR: throw PropertyListError(.malformed, "is a folder, not a file")
            case EINVAL: throw PropertyListError(.malformed, "is a device, socket or pipe, not a file")
            default: throw error
            }
        }
    }

    /// The `InfoPlist.strings` tables of the bundle at `url`, by language code; a table that
    /// can't be read is left out (`appex validate` says why).
    public func localizations(in url: URL) -> [String: [String: String]] {
        var ignored: [Diagnostic] = []
        return Self.localizations(in: try? ConfinedFolder(trusted: url.path), at: "", display: url.lastPathComponent, diagnostics: &ignored)
    }

    /// The tables of the bundle at `relative` in `folder`, each read through links that stay
    /// inside `folder` and only up to the property-list size limit.
    private static func localizations(
        in folder: ConfinedFolder?, at relative: String, display: String, diagnostics: inout [Diagnostic]
    ) -> [String: [String: String]] {
        guard let folder else { return [:] }
        let bundle = relative.isEmpty ? folder : try? folder.folder(relative)
        let names = ((try? bundle?.entries()) ?? []).map(\.name)
        var tables: [String: [String: String]] = [:]
        for name in names where name.hasSuffix(BundleLayout.localizationSuffix) {
            let language = String(name.dropLast(BundleLayout.localizationSuffix.count))
            let file = (relative.isEmpty ? "" : relative + "/") + name + "/" + BundleLayout.infoPlistStrings
            guard (try? folder.resolve(file)) != nil else { continue }
            let shown = display + "/" + name + "/" + BundleLayout.infoPlistStrings
            do {
                tables[language] = try StringsFile.decode(propertyListData(file, in: folder))
            } catch let error as PropertyListError {
                diagnostics.append(Diagnostic(
                    .error, "malformed-strings", file: shown, error.reason,
                    hint: "write \"key\" = \"value\"; lines, in UTF-8 or UTF-16 with a byte-order mark"
                ))
            } catch {
                diagnostics.append(Diagnostic(.error, "unreadable", file: shown, "can't be read: \(error)"))
            }
        }
        return tables
    }
}
