import AppexLocking
public import AppexSystem
import CFUSEKernel
public import Glibc

/// A FUSE file system mounted on a folder: the kernel's end of it, /dev/fuse, from which a
/// ``FUSEServer`` reads the requests that the folder's users make.
///
/// Mounted with mount(2), which needs CAP_SYS_ADMIN (appexd running as root); an unprivileged
/// mount through `fusermount3` is not built yet (docs/file-provider.md, "Left to build").
public final class FUSEMount: Sendable {
    /// The folder the file system is mounted on.
    public let path: String
    /// The connection to the kernel: /dev/fuse, opened for this mount.
    public let device: FileDescriptor
    private let mounted = Locked(true)

    private init(path: String, device: FileDescriptor) {
        self.path = path
        self.device = device
    }

    /// Mounts a new FUSE file system on the folder at `path`, which must exist, shown as
    /// `name` (the source `mount` and `df` list) and owned by `userID`/`groupID`: only they
    /// may use it, and the kernel checks permissions against the modes the file system gives.
    /// A `readOnly` mount refuses every change with EROFS, in the kernel.
    public static func mount(at path: String, name: String, userID: UInt32 = getuid(), groupID: UInt32 = getgid(),
                             readOnly: Bool = false) throws(SystemError) -> FUSEMount {
        let device = try FileDescriptor.open("/dev/fuse", flags: O_RDWR | O_CLOEXEC)
        let options = "fd=\(device.rawValue),rootmode=40000,user_id=\(userID),group_id=\(groupID),default_permissions"
        let flags = MS_NOSUID | MS_NODEV | (readOnly ? MS_RDONLY : 0)
        guard Glibc.mount(name, path, "fuse.appex", UInt(flags), options) == 0 else {
            throw SystemError("mount FUSE on", subject: path)
        }
        return FUSEMount(path: path, device: device)
    }

    /// Detaches the mount: new uses of the folder see the folder beneath, and the server's
    /// reads end once the kernel is done with the file system. Safe to call more than once.
    public func unmount() {
        let wasMounted = mounted.withLock { mounted in
            defer { mounted = false }
            return mounted
        }
        if wasMounted { Self.detach(path) }
    }

    /// Whether `path` is a FUSE mount whose server is gone: the kernel answers every use of it
    /// with ENOTCONN ("Transport endpoint is not connected").
    public static func isStale(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 && errno == ENOTCONN
    }

    /// Detaches whatever is mounted on `path`, such as a stale mount; true if something was.
    @discardableResult
    public static func detach(_ path: String) -> Bool {
        umount2(path, Int32(MNT_DETACH)) == 0
    }
}
