public import AppexSystem
public import Foundation
import Glibc

/// A file that came from another process: it arrives as a descriptor, reached through a
/// link to `/proc/self/fd/N`. Reading it through the descriptor, not the link's path, works
/// where the path is closed: opening the link reaches the file by its real path again,
/// which a sandbox (Landlock) checks, and an extension may read only what it was handed.
public enum DescriptorLink {
    /// A duplicate of the descriptor that `url` links to, or nil if `url` is not a link to
    /// one of this process's descriptors.
    public static func descriptor(behind url: URL) -> FileDescriptor? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: url.path),
              target.hasPrefix("/proc/self/fd/"), let number = Int32(target.dropFirst("/proc/self/fd/".count)) else { return nil }
        let copy = fcntl(number, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? FileDescriptor(owning: copy) : nil
    }
}
