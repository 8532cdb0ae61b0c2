import AppexCore
import Foundation

/// Every entry of a bundle folder, walked without following symbolic links, with the checks
/// that keep a hostile bundle out: links that leave the bundle, special files, libraries
/// outside `Frameworks/`, extensions outside `PlugIns/`, and trees too large or too deep.
struct BundleTree {
    /// One file, folder or link, by its path relative to the bundle root.
    struct Entry {
        enum Kind { case file, directory, symlink, other }
        var path: String
        var kind: Kind
        var size: Int
    }

    let root: URL
    private(set) var entries: [Entry] = []
    private(set) var diagnostics: [Diagnostic] = []
    private let displayRoot: String

    /// Walks `root`; `displayRoot` prefixes the paths diagnostics name, such as `Notes.app`.
    init(root: URL, displayRoot: String) {
        self.root = root
        self.displayRoot = displayRoot
        walk(relative: "", depth: 0)
    }

    private var fileManager: FileManager { .default }

    private mutating func walk(relative: String, depth: Int) {
        let directory = relative.isEmpty ? root.path : root.path + "/" + relative
        guard depth <= BundleLayout.maximumDepth else {
            report(.error, "too-deep", relative, "is nested more than \(BundleLayout.maximumDepth) folders deep", hint: "flatten the bundle")
            return
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            report(.error, "unreadable", relative, "can't be read: \(error.localizedDescription)", hint: "check its permissions")
            return
        }
        for name in names {
            guard entries.count < BundleLayout.maximumFileCount else {
                report(.error, "too-many-files", "", "holds more than \(BundleLayout.maximumFileCount) files", hint: "a bundle this large is not accepted")
                return
            }
            let path = relative.isEmpty ? name : relative + "/" + name
            let entry = inspect(path)
            entries.append(entry)
            switch entry.kind {
            case .directory:
                check(directory: path)
                walk(relative: path, depth: depth + 1)
            case .symlink:
                check(symlink: path)
            case .file:
                check(file: path)
            case .other:
                report(.error, "special-file", path, "is a device, socket or pipe, which a bundle may not hold", hint: "remove it")
            }
        }
    }

    private func inspect(_ path: String) -> Entry {
        let attributes = (try? fileManager.attributesOfItem(atPath: root.path + "/" + path)) ?? [:]
        let kind: Entry.Kind =
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?: .directory
            case .typeRegular?: .file
            case .typeSymbolicLink?: .symlink
            default: .other
            }
        return Entry(path: path, kind: kind, size: (attributes[.size] as? NSNumber)?.intValue ?? 0)
    }

    private mutating func check(directory path: String) {
        let components = path.split(separator: "/")
        let name = components.last.map(String.init) ?? path
        if name.hasSuffix(BundleLayout.extensionSuffix) {
            let inPlugIns = components.count == 2 && components[0] == Substring(BundleLayout.plugIns)
            if !inPlugIns {
                report(
                    .error, "misplaced-extension", path, "is an extension outside the containing app's PlugIns/ folder",
                    hint: "move it to \(BundleLayout.plugIns)/\(name)"
                )
            }
        }
        if name == "SharedFrameworks" {
            report(
                .error, "shared-frameworks", path, "is a SharedFrameworks folder, which Apple rejects and Appex does too",
                hint: "put shared libraries in the containing app's \(BundleLayout.frameworks)/ folder"
            )
        }
    }

    private mutating func check(file path: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard BundleLayout.isSharedLibraryName(name) else { return }
        let inAppFrameworks = path.hasPrefix(BundleLayout.frameworks + "/")
        if !inAppFrameworks {
            report(
                .error, "library-outside-frameworks", path, "is a shared library outside the containing app's \(BundleLayout.frameworks)/ folder",
                hint: "move it to \(BundleLayout.frameworks)/\(name); the app and its extensions link it through an rpath"
            )
        }
    }

    private mutating func check(symlink path: String) {
        guard let target = try? fileManager.destinationOfSymbolicLink(atPath: root.path + "/" + path) else {
            report(.error, "unreadable-link", path, "is a symbolic link that can't be read")
            return
        }
        guard !target.hasPrefix("/"), Self.staysInside(link: path, target: target) else {
            report(
                .error, "link-escapes-bundle", path, "is a symbolic link to \(target), outside the bundle",
                hint: "copy the file into the bundle instead of linking to it"
            )
            return
        }
        let resolved = URL(fileURLWithPath: root.path + "/" + path).resolvingSymlinksInPath().path
        if !fileManager.fileExists(atPath: resolved) {
            report(.error, "dangling-link", path, "is a symbolic link to \(target), which does not exist", hint: "remove the link or add its target")
        }
    }

    /// Whether a relative link at `link` whose text is `target` resolves inside the root, lexically.
    static func staysInside(link: String, target: String) -> Bool {
        var stack = link.split(separator: "/").dropLast().map(String.init)
        for component in target.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                guard !stack.isEmpty else { return false }
                stack.removeLast()
            default: stack.append(String(component))
            }
        }
        return true
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ code: String, _ path: String, _ message: String, hint: String? = nil) {
        let file = path.isEmpty ? displayRoot : displayRoot + "/" + path
        diagnostics.append(Diagnostic(severity, code, file: file, message, hint: hint))
    }
}
