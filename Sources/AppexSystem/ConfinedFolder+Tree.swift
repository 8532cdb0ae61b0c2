import CAppexSystem
public import Foundation
import Glibc

/// Reading a tree that another party may change under the reader: a bundle's author, an
/// extension in its container. Entries are listed as they are (links not followed), a link
/// is resolved by the kernel from this folder as an open would resolve it, and a file is read
/// only if it is a regular file and no larger than the reader allows.
extension ConfinedFolder {
    /// One entry of a folder, as `lstat` sees it: a link is a link, never what it leads to.
    public struct Entry: Sendable, Hashable {
        /// What an entry is.
        public enum Kind: Sendable, Hashable {
            case file, folder, link
            /// A device, FIFO or socket.
            case other
        }

        public var name: String
        public var kind: Kind
        /// Its size in bytes, as `st_size` says.
        public var size: Int64

        init(name: String, status: stat) {
            self.name = name
            kind = switch status.st_mode & S_IFMT {
            case S_IFREG: .file
            case S_IFDIR: .folder
            case S_IFLNK: .link
            default: .other
            }
            size = Int64(status.st_size)
        }
    }

    /// The folder's entries, sorted by name, without `.` and `..`: at most `limit` and one
    /// more, so that a caller with a limit can tell it was passed without reading a folder of
    /// millions to the end.
    public func entries(limit: Int = .max) throws(SystemError) -> [Entry] {
        let folder = descriptor.rawValue
        // closedir closes the descriptor fdopendir took, so it takes a copy.
        let copy = try retrying("open", subject: path) { openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard let stream = fdopendir(copy) else {
            let error = SystemError("fdopendir", subject: path)
            Glibc.close(copy)
            throw error
        }
        defer { closedir(stream) }
        var names: [String] = []
        errno = 0
        while names.count <= limit, let entry = readdir(stream) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != ".", name != ".." { names.append(name) }
            errno = 0
        }
        if errno != 0 { throw SystemError("readdir", subject: path) }
        var entries: [Entry] = []
        for name in names.sorted() {
            var status = stat()
            // Gone since it was listed: not an entry any more.
            guard fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                if errno == ENOENT { continue }
                throw SystemError("fstatat", subject: subject(name))
            }
            entries.append(Entry(name: name, status: status))
        }
        return entries
    }

    /// The text of the symbolic link `name` in this folder.
    public func linkTarget(_ name: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let folder = descriptor.rawValue
        let count = try retrying("readlink", subject: subject(name)) { readlinkat(folder, name, &buffer, buffer.count - 1) }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// What `relative` leads to, resolved by the kernel from this folder as an open would,
    /// through every symbolic link on the way, as long as each step stays beneath the folder.
    /// Throws EXDEV for a path or a chain of links that leaves it (an absolute link among
    /// them), ELOOP for a loop, ENOENT where it leads nowhere.
    public func resolve(_ relative: String) throws(SystemError) -> Entry.Kind {
        let pathOnly: Int32 = 0o10000000  // O_PATH, which Glibc's module doesn't export
        let folder = descriptor.rawValue
        let raw = try retrying("resolve", subject: subject(relative)) { appex_open_within(folder, relative, pathOnly) }
        defer { Glibc.close(raw) }
        var status = stat()
        _ = try retrying("fstat", subject: subject(relative)) { fstat(raw, &status) }
        return Entry(name: relative, status: status).kind
    }

    /// Opens the regular file at `relative` for reading: links on the way followed where they
    /// stay beneath this folder if `followingLinks`, else refused (ELOOP). Anything but a
    /// regular file is refused without waiting on it (EISDIR for a folder, else EINVAL).
    public func openRegularFile(_ relative: String, followingLinks: Bool) throws(SystemError) -> FileDescriptor {
        let folder = descriptor.rawValue
        let flags = O_RDONLY | O_NONBLOCK | O_NOCTTY
        let raw = try retrying("open", subject: subject(relative)) {
            followingLinks ? appex_open_within(folder, relative, flags) : appex_open_beneath(folder, relative, flags, 0)
        }
        let file = FileDescriptor(owning: raw)
        guard try file.isRegularFile() else {
            let error = SystemError("open a regular file", subject: subject(relative), errno: try file.isDirectory() ? EISDIR : EINVAL)
            file.close()
            throw error
        }
        return file
    }

    /// The regular file at `relative`, opened as ``openRegularFile(_:followingLinks:)`` opens
    /// it and read whole, if it holds at most `limit` bytes; a larger one is refused unread (EFBIG).
    public func readFile(_ relative: String, limit: Int, followingLinks: Bool) throws(SystemError) -> Data {
        let file = try openRegularFile(relative, followingLinks: followingLinks)
        defer { file.close() }
        let failure: SystemError
        do {
            return try file.readContents(limit: limit)
        } catch {
            failure = error
        }
        guard failure.errno == EFBIG else { throw failure }
        throw SystemError("read more than \(limit) bytes from", subject: subject(relative), errno: EFBIG)
    }
}
