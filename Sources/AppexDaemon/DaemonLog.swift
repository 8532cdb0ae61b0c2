import AppexCore
import AppexLocking
import AppexSystem
import Foundation
import Glibc

/// appexd's log: its standard error, which whoever started it (the `appex` command, a host)
/// pointed at `appexd.log` in the runtime folder. Every line of appexd's, and every
/// extension's output (``ExtensionOutput``), is written here, one write at a time.
///
/// appexd runs for days, and the runtime folder is often a small tmpfs the whole session
/// shares, so the log is kept under a limit. Its size is checked every ``checkInterval``
/// bytes written; once past the limit, the file moves to `appexd.log.1`, in place of the one
/// before, and appexd goes on in a new `appexd.log`: the two hold at most about twice the
/// limit. A log given elsewhere (a terminal, the journal, a file of the user's choosing) is
/// left alone.
enum DaemonLog {
    /// How often, in bytes written, the log's size is checked.
    static let checkInterval = 64 * 1024

    private struct Rotation {
        var url: URL
        var limit: Int
        var uncheckedBytes = 0
    }

    /// The rotation, once ``keep(at:limit:)`` has set it. Each write holds the lock, so none
    /// lands between the move's last line in the old file and its first in the new.
    private static let rotation = Locked<Rotation?>(nil)

    /// Keeps the log at `url` under `limit` bytes from now on, if appexd's standard error is
    /// that file; moves it at once if it is past the limit already.
    static func keep(at url: URL, limit: Int) {
        let kept = Rotation(url: url, limit: limit)
        rotation.withLock { rotation in
            rotation = kept
            moveIfPastLimit(kept)
        }
    }

    /// Writes one line of appexd's own. Control characters in it, such as a newline in a
    /// bundle's display name, are written out as escapes, so that what a bundle names itself
    /// can't add a line that passes for appexd's. A line that can't be written is dropped.
    static func write(line: String) {
        append(Array(line.escapingControlCharacters.utf8) + [UInt8(ascii: "\n")])
    }

    /// Writes `bytes` in one write where the kernel takes them whole, and moves the log on
    /// once past its limit.
    static func append(_ bytes: [UInt8]) {
        rotation.withLock { rotation in
            StandardError.write(bytes)
            guard var kept = rotation else { return }
            kept.uncheckedBytes += bytes.count
            if kept.uncheckedBytes >= checkInterval {
                kept.uncheckedBytes = 0
                moveIfPastLimit(kept)
            }
            rotation = kept
        }
    }

    /// Moves the file at `url` to `url.1`, in place of the one before, if it holds `limit`
    /// bytes or more: for another program's log, such as appex-transfers', which appexd opens
    /// anew at each of its starts.
    static func moveAside(_ url: URL, ifPast limit: Int) {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) >= limit else { return }
        _ = moveToPrevious(url)
    }

    /// Renames `url` to `url.1`, in place of the one before, and returns the new path; or says
    /// why not, straight on standard error (the lock may be held), and returns nil.
    private static func moveToPrevious(_ url: URL) -> String? {
        let previous = url.path + ".1"
        guard Glibc.rename(url.path, previous) == 0 else {
            StandardError.write(line: "appexd: \(url.path) could not be moved to \(previous): \(String(cString: strerror(errno))); it goes on growing")
            return nil
        }
        return previous
    }

    /// Moves the file to `.1` and opens a new one in its place, on standard output and error,
    /// if standard error is the file at the rotation's path and has reached its limit.
    private static func moveIfPastLimit(_ rotation: Rotation) {
        var current = stat()
        var named = stat()
        guard fstat(STDERR_FILENO, &current) == 0, current.st_mode & S_IFMT == S_IFREG, Int(current.st_size) >= rotation.limit,
              lstat(rotation.url.path, &named) == 0, named.st_dev == current.st_dev, named.st_ino == current.st_ino else { return }
        guard let previous = moveToPrevious(rotation.url) else { return }
        let fresh = open(rotation.url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fresh >= 0 else {
            StandardError.write(line: "appexd: a new log could not be made at \(rotation.url.path): \(String(cString: strerror(errno))); it goes on in \(previous)")
            return
        }
        defer { close(fresh) }
        StandardError.write(line: "appexd: the log goes on in \(rotation.url.path)")
        var output = stat()
        if fstat(STDOUT_FILENO, &output) == 0, output.st_dev == current.st_dev, output.st_ino == current.st_ino {
            dup2(fresh, STDOUT_FILENO)
        }
        dup2(fresh, STDERR_FILENO)
        StandardError.write(line: "appexd: the log before this line is in \(previous)")
    }
}
