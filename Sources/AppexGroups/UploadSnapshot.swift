import AppexSystem
import Foundation
import Glibc

/// The temporary copy of an item that a read `forUploading` hands its accessor, as Apple's
/// coordinator makes one: a file is copied (a reflink where the file system can, so it
/// costs nothing until either is written), a folder is zipped into `NAME.zip`
/// (``FolderZip``). It is made while the read's claim is held, so it is the item as no
/// writer has it half written, and it lives in a private folder of the process's temporary
/// folder until the accessor returns. No link is followed, at the item or inside it: another
/// member of the group may have put them there.
struct UploadSnapshot {
    /// The copy, or the zip of a folder.
    let url: URL
    /// The private folder that holds it, removed with it.
    private let folder: URL

    /// Makes the snapshot of `item`, or throws ``Failure`` and leaves nothing behind.
    init(of item: URL) throws(Failure) {
        let name = item.lastPathComponent
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("appex-upload-\(UUID().uuidString)")
        guard mkdir(folder.path, 0o700) == 0 else {
            throw Failure(item: item, reason: SystemError("mkdir", subject: folder.path))
        }
        do throws(SystemError) {
            // Not through a link: a group member that put one where the item was would have
            // the app upload what it points to, such as the user's ~/.ssh.
            let source: FileDescriptor
            do {
                source = try FileDescriptor.open(item.path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC)
            } catch where error.errno == ELOOP {
                throw SystemError("snapshot, without following it, a symbolic link (read with .resolvesSymbolicLink to upload what it points to)",
                                  subject: item.path, errno: ELOOP)
            }
            defer { source.close() }
            if try source.isDirectory() {
                url = folder.appendingPathComponent(name + ".zip")
                let output = try FileDescriptor.open(url.path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
                defer { output.close() }
                let tree = try ConfinedFolder(item.path)
                defer { tree.close() }
                try FolderZip(limits: FolderZip.zipLimits).write(tree, as: name, to: output)
            } else if try source.isRegularFile() {
                url = folder.appendingPathComponent(name)
                try source.copyContents(toNewFileAt: url.path)
            } else {
                throw SystemError("snapshot a file or folder", subject: "\(item.path), a device, FIFO or socket,", errno: EINVAL)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw Failure(item: item, reason: error)
        }
        self.folder = folder
    }

    /// Removes the snapshot, wherever the accessor left it in its folder.
    func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Why no snapshot of an item could be made.
    struct Failure: Error, CustomStringConvertible {
        let item: URL
        let reason: SystemError

        var description: String { "a snapshot of \(item.path) for uploading could not be made: \(reason)" }
    }
}
