import Glibc

/// A copy of a folder tree that another party may still change while it is copied, such as a
/// bundle its author writes: each entry is read through a descriptor and copied as it was
/// when opened, never through a symbolic link, so the copy is a real tree that only its
/// owner changes afterwards. Folders, regular files and links are copied (a link as a link,
/// with its text); anything else stops the copy. The copy is left read-only: folders 0555,
/// files 0444, or 0555 where the original could be run.
///
/// ```swift
/// try FolderCopy(limits: .init(files: 20_000, depth: 32, bytes: 8 << 30))
///     .copy(from: ConfinedFolder(source), into: ConfinedFolder(destination))
/// ```
public struct FolderCopy: Sendable {
    /// The most a copy may take; past any of them it stops with an error.
    public struct Limits: Sendable, Hashable {
        /// Entries of any kind.
        public var files: Int
        /// Folders within folders, below the one copied.
        public var depth: Int
        /// Bytes of regular files, by their sizes when opened.
        public var bytes: Int64

        public init(files: Int, depth: Int, bytes: Int64) {
            self.files = files
            self.depth = depth
            self.bytes = bytes
        }
    }

    public var limits: Limits

    public init(limits: Limits) {
        self.limits = limits
    }

    /// What has been copied so far, against the limits.
    private struct Tally {
        var files = 0
        var bytes: Int64 = 0
    }

    /// Copies everything in `source` into `destination`, which should be empty, and then
    /// makes `destination` read-only too. Throws the first failure, with the path it met it
    /// at; what was copied until then stays, for the caller to remove.
    public func copy(from source: ConfinedFolder, into destination: ConfinedFolder) throws(SystemError) {
        var tally = Tally()
        try copy(from: source, into: destination, depth: 0, tally: &tally)
    }

    private func copy(from source: ConfinedFolder, into destination: ConfinedFolder, depth: Int, tally: inout Tally) throws(SystemError) {
        guard depth <= limits.depth else {
            throw SystemError("copy a tree at most \(limits.depth) folders deep", subject: source.path, errno: ELOOP)
        }
        for entry in try source.entries(limit: limits.files - tally.files) {
            tally.files += 1
            guard tally.files <= limits.files else {
                throw SystemError("copy a tree of at most \(limits.files) files", subject: source.path, errno: EFBIG)
            }
            let name = entry.name
            switch entry.kind {
            case .folder:
                let folder = try source.folder(name)
                defer { folder.close() }
                let made = destination.descriptor.rawValue
                _ = try retrying("mkdir", subject: destination.subject(name)) { mkdirat(made, name, 0o700) }
                let copied = try destination.folder(name)
                defer { copied.close() }
                try copy(from: folder, into: copied, depth: depth + 1, tally: &tally)
            case .file:
                try copyFile(name, from: source, into: destination, tally: &tally)
            case .link:
                let target = try source.linkTarget(name)
                let made = destination.descriptor.rawValue
                _ = try retrying("symlink", subject: destination.subject(name)) { symlinkat(target, made, name) }
            case .other:
                throw SystemError("copy a folder, file or link", subject: "\(source.subject(name)), a device, FIFO or socket,", errno: EINVAL)
            }
        }
        let made = destination.descriptor.rawValue
        _ = try retrying("chmod", subject: destination.path) { fchmod(made, 0o555) }
    }

    private func copyFile(_ name: String, from source: ConfinedFolder, into destination: ConfinedFolder, tally: inout Tally) throws(SystemError) {
        // Opened as it is now: if it became anything but a file since it was listed, this refuses it.
        let input = try source.openFile(name)
        defer { input.close() }
        var status = stat()
        let raw = input.rawValue
        _ = try retrying("fstat", subject: source.subject(name)) { fstat(raw, &status) }
        let length = Int64(status.st_size)
        tally.bytes += length
        guard tally.bytes <= limits.bytes else {
            throw SystemError("copy a tree of at most \(limits.bytes) bytes", subject: source.subject(name), errno: EFBIG)
        }
        let runnable = status.st_mode & 0o111 != 0
        let output = try destination.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: runnable ? 0o555 : 0o444)
        defer { output.close() }
        // The length it had when opened: a writer growing it meanwhile adds nothing.
        var offset: off_t = 0
        while Int64(offset) < length {
            let sent = try retrying("sendfile", subject: destination.subject(name)) {
                sendfile(output.rawValue, raw, &offset, Int(length - Int64(offset)))
            }
            if sent == 0 { break }
        }
    }
}

extension ConfinedFolder {
    /// Removes the entry `name` of this folder and, if it is a folder, everything in it. A
    /// link is removed, never followed; a read-only folder in the tree is made writable
    /// first, since only its owner's removal comes here. Does nothing if there is no such
    /// entry; throws the first failure.
    public func removeTree(_ name: String) throws(SystemError) {
        let folder = descriptor.rawValue
        var status = stat()
        guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return }
            throw SystemError("fstatat", subject: subject(name))
        }
        if status.st_mode & S_IFMT == S_IFDIR {
            let inside = try self.folder(name)
            defer { inside.close() }
            let raw = inside.descriptor.rawValue
            _ = try retrying("chmod", subject: inside.path) { fchmod(raw, 0o700) }
            for entry in try inside.entries() { try inside.removeTree(entry.name) }
        }
        let removal = status.st_mode & S_IFMT == S_IFDIR ? AT_REMOVEDIR : 0
        let result = unlinkat(folder, name, removal)
        if result != 0, errno != ENOENT { throw SystemError("remove", subject: subject(name)) }
    }

    /// Removes the file, link or folder tree at `path`, as ``removeTree(_:)`` does; the folder
    /// that holds it is trusted and must be writable.
    public static func removeTree(atPath path: String) throws(SystemError) {
        let components = path.split(separator: "/")
        guard let name = components.last.map(String.init), name != ".", name != ".." else {
            throw SystemError("remove", subject: path, errno: EINVAL)
        }
        let parent = (path.hasPrefix("/") ? "/" : "") + components.dropLast().joined(separator: "/")
        let folder = try ConfinedFolder(trusted: parent.isEmpty ? "." : parent)
        defer { folder.close() }
        try folder.removeTree(name)
    }
}
