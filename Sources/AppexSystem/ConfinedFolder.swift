import CAppexSystem
public import Glibc

/// A folder that a less trusted process can change, such as an app group's container, which
/// its extensions write: held open, with every path inside it resolved by the kernel beneath
/// it and through no symbolic link (`openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`).
/// A link or a `..` planted inside can't send a write, a rename or a removal anywhere else,
/// and a FIFO or a device planted where a file should be is refused, not opened.
///
/// ```swift
/// let container = try ConfinedFolder(groupContainer.path)
/// let transfers = try container.folder("Library/Caches/Transfers", creating: true)
/// let file = try transfers.openFile("\(id).partial", flags: O_WRONLY | O_CREAT | O_APPEND)
/// ```
public struct ConfinedFolder: Sendable {
    /// The open folder.
    public let descriptor: FileDescriptor
    /// The folder's path, for messages.
    public let path: String

    /// Opens the folder at `path`. The path is trusted, but not its last component, which
    /// must be a folder and not a link (ENOTDIR).
    public init(_ path: String) throws(SystemError) {
        let raw = try retrying("open", subject: path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        self.init(descriptor: FileDescriptor(owning: raw), path: path)
    }

    /// Opens the folder at `path`, every component of which is trusted: links on the way,
    /// the last one among them, are followed, as the path's owner meant them.
    public init(trusted path: String) throws(SystemError) {
        let raw = try retrying("open", subject: path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        self.init(descriptor: FileDescriptor(owning: raw), path: path)
    }

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// The folder at `relative` inside this one; with `creating`, each missing folder on the
    /// way is made, private to this user.
    public func folder(_ relative: String, creating: Bool = false) throws(SystemError) -> ConfinedFolder {
        var folder = self
        for name in relative.split(separator: "/") where name != "." {
            let name = String(name)
            if creating, mkdirat(folder.descriptor.rawValue, name, 0o700) != 0, errno != EEXIST {
                throw SystemError("mkdir", subject: folder.subject(name))
            }
            let raw = try folder.openBeneath(name, flags: O_RDONLY | O_DIRECTORY, mode: 0)
            folder = ConfinedFolder(descriptor: FileDescriptor(owning: raw), path: folder.subject(name))
        }
        return folder
    }

    /// Opens the regular file at `relative` with `flags` (and `mode`, where it is created).
    /// Anything else there is refused: a link (ELOOP), a folder (EISDIR), a FIFO, socket or
    /// device (EINVAL), each without waiting for a peer.
    public func openFile(_ relative: String, flags: Int32 = O_RDONLY, mode: Glibc.mode_t = 0o600) throws(SystemError) -> FileDescriptor {
        let raw = try openBeneath(relative, flags: flags | O_NONBLOCK | O_NOCTTY, mode: mode)
        let file = FileDescriptor(owning: raw)
        var status = stat()
        guard fstat(raw, &status) == 0 else { throw SystemError("fstat", subject: subject(relative)) }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            // Regular files ignore O_NONBLOCK; clearing it keeps the open file description plain.
            _ = fcntl(raw, F_SETFL, fcntl(raw, F_GETFL) & ~O_NONBLOCK)
            return file
        case S_IFDIR:
            throw SystemError("open a regular file", subject: subject(relative), errno: EISDIR)
        default:
            throw SystemError("open a regular file", subject: subject(relative), errno: EINVAL)
        }
    }

    /// The size of the regular file `name` in this folder, or nil if there is none: a link
    /// or anything other than a regular file is not followed or counted.
    public func sizeOfFile(_ name: String) -> Int64? {
        var status = stat()
        guard Self.isName(name), fstatat(descriptor.rawValue, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// The identity of the entry `name` of this folder, itself if it is a link; nil if there
    /// is none.
    public func identity(of name: String) -> FileIdentity? {
        var status = stat()
        guard Self.isName(name), fstatat(descriptor.rawValue, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileIdentity(status)
    }

    /// Renames `name` to `newName`, both in this folder; a link at either is renamed or
    /// replaced itself, never followed.
    public func rename(_ name: String, to newName: String) throws(SystemError) {
        guard Self.isName(name), Self.isName(newName) else { throw SystemError("rename", subject: subject(name), errno: EINVAL) }
        _ = try retrying("rename", subject: subject(name)) { renameat(descriptor.rawValue, name, descriptor.rawValue, newName) }
    }

    /// Removes the file (or link) `name` from this folder, if it is there. A folder is left.
    public func removeFile(_ name: String) {
        guard Self.isName(name) else { return }
        _ = unlinkat(descriptor.rawValue, name, 0)
    }

    /// Removes the file (or link) at `path`, which lies below the trusted folder `root`,
    /// through no link below `root`. Does nothing if there is no such file, or if `path`
    /// doesn't lie below `root`.
    public static func removeFile(atPath path: String, below root: String) {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        guard let folder = relativePath(of: String(path.dropLast(name.count)), below: root),
              let opened = try? ConfinedFolder(root).folder(folder) else { return }
        opened.removeFile(name)
        opened.close()
    }

    /// `path` relative to `root`, if it lies below it: lexically, with no `.` or `..`
    /// component, since only the kernel resolves what lies below.
    public static func relativePath(of path: String, below root: String) -> String? {
        let components = path.split(separator: "/")
        let rootComponents = root.split(separator: "/")
        guard components.count > rootComponents.count, components.starts(with: rootComponents),
              !components.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        return components.dropFirst(rootComponents.count).joined(separator: "/")
    }

    /// Closes the folder.
    public func close() { descriptor.close() }

    private func openBeneath(_ relative: String, flags: Int32, mode: mode_t) throws(SystemError) -> Int32 {
        let folder = descriptor.rawValue
        return try retrying("open", subject: subject(relative)) { appex_open_beneath(folder, relative, flags, mode) }
    }

    /// Whether `name` names an entry of this folder, not a path through another.
    private static func isName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    func subject(_ relative: String) -> String { path + "/" + relative }
}
