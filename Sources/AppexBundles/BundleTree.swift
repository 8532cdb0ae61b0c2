import AppexCore
import AppexSystem
import Foundation
import Glibc

/// Every entry of a bundle folder, walked through descriptors without following symbolic
/// links, with the checks that keep a hostile bundle out: links that lead out of the bundle,
/// links where the sandbox grants a folder, special files, libraries outside `Frameworks/`,
/// extensions outside `PlugIns/`, and trees too large or too deep.
///
/// The bundle's files are read through ``folder``, the bundle held open: each path is
/// resolved by the kernel beneath it, so a link (or a chain of them) that leads out of the
/// bundle, or one swapped in after the walk, is never followed out; a FIFO or device is never
/// waited on; and a file is read only up to the size its reader allows.
struct BundleTree {
    /// One file, folder or link, by its path relative to the bundle root.
    struct Entry {
        enum Kind { case file, directory, symlink, other }
        var path: String
        var kind: Kind
        var size: Int64
    }

    let root: URL
    /// The bundle's folder, open; nil if it isn't a folder that can be opened.
    let folder: ConfinedFolder?
    private(set) var entries: [Entry] = []
    private(set) var diagnostics: [Diagnostic] = []
    private let displayRoot: String
    private var totalSize: Int64 = 0

    /// Walks `root`, which must be a folder and not a link; `displayRoot` prefixes the paths
    /// diagnostics name, such as `Notes.app`.
    init(root: URL, displayRoot: String) {
        self.root = root
        self.displayRoot = displayRoot
        do {
            folder = try ConfinedFolder(root.path)
        } catch {
            folder = nil
            let found = error.errno == ELOOP || error.errno == ENOTDIR ? "is a symbolic link or not a folder" : "can't be opened: \(error)"
            report(.error, "not-a-folder", "", found, hint: "give the path of the bundle's real folder")
            return
        }
        walk(folder!, relative: "", depth: 0)
    }

    /// What `relative` leads to inside the bundle, through links that stay inside it; nil if
    /// nothing there can be reached that way.
    func kind(of relative: String) -> ConfinedFolder.Entry.Kind? {
        try? folder?.resolve(relative)
    }

    private mutating func walk(_ folder: ConfinedFolder, relative: String, depth: Int) {
        guard depth <= BundleLayout.maximumDepth else {
            report(.error, "too-deep", relative, "is nested more than \(BundleLayout.maximumDepth) folders deep", hint: "flatten the bundle")
            return
        }
        let listed: [ConfinedFolder.Entry]
        do {
            listed = try folder.entries(limit: BundleLayout.maximumFileCount - entries.count)
        } catch {
            report(.error, "unreadable", relative, "can't be read: \(error)", hint: "check its permissions")
            return
        }
        for found in listed {
            guard entries.count < BundleLayout.maximumFileCount else {
                report(.error, "too-many-files", "", "holds more than \(BundleLayout.maximumFileCount) files", hint: "a bundle this large is not accepted")
                return
            }
            let path = relative.isEmpty ? found.name : relative + "/" + found.name
            let kind: Entry.Kind = switch found.kind {
            case .file: .file
            case .folder: .directory
            case .link: .symlink
            case .other: .other
            }
            entries.append(Entry(path: path, kind: kind, size: found.size))
            switch kind {
            case .directory:
                check(directory: path)
                do {
                    let inside = try folder.folder(found.name)
                    defer { inside.close() }
                    walk(inside, relative: path, depth: depth + 1)
                } catch {
                    report(.error, "unreadable", path, "can't be opened as a folder: \(error)", hint: "keep the bundle still while it is read")
                }
            case .symlink:
                check(symlink: path, in: folder, name: found.name)
            case .file:
                check(file: path, size: found.size)
            case .other:
                report(.error, "special-file", path, "is a device, socket or pipe, which a bundle may not hold", hint: "remove it")
            }
        }
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

    private mutating func check(file path: String, size: Int64) {
        totalSize += size
        if totalSize > BundleLayout.maximumSize, totalSize - size <= BundleLayout.maximumSize {
            report(.error, "too-large", "", "holds more than \(BundleLayout.maximumSize >> 30) GiB of files", hint: "a bundle this large is not accepted")
        }
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

    /// A link is resolved as the kernel resolves it, from the bundle root through every link
    /// on the way, not judged by its text: two links that each stay inside by their text can
    /// lead out together (`a/b/up → ../..`, then `Frameworks → a/b/up/../..`).
    private mutating func check(symlink path: String, in folder: ConfinedFolder, name: String) {
        guard let target = try? folder.linkTarget(name) else {
            report(.error, "unreadable-link", path, "is a symbolic link that can't be read")
            return
        }
        if BundleLayout.isGrantedFolder(path) {
            report(
                .error, "granted-folder-is-link", path,
                "is a symbolic link to \(target), where the sandbox grants a folder by its path and follows no link",
                hint: "make it a real folder"
            )
            return
        }
        do {
            _ = try self.folder?.resolve(path)
        } catch where error.errno == EXDEV {
            report(
                .error, "link-escapes-bundle", path,
                "is a symbolic link to \(target), which leads outside the bundle"
                    + (target.hasPrefix("/") ? "" : ", followed as the kernel follows it through every link on the way"),
                hint: "copy the file into the bundle instead of linking to it"
            )
        } catch where error.errno == ELOOP {
            report(.error, "link-loop", path, "is a symbolic link to \(target), which leads round in a loop", hint: "remove the link")
        } catch where error.errno == ENOENT {
            report(.error, "dangling-link", path, "is a symbolic link to \(target), which does not exist", hint: "remove the link or add its target")
        } catch {
            report(.error, "unreadable-link", path, "is a symbolic link to \(target), which can't be followed: \(error)")
        }
    }

    private mutating func report(_ severity: Diagnostic.Severity, _ code: String, _ path: String, _ message: String, hint: String? = nil) {
        let file = path.isEmpty ? displayRoot : displayRoot + "/" + path
        diagnostics.append(Diagnostic(severity, code, file: file, message, hint: hint))
    }
}
