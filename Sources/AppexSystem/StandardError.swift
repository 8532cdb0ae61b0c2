import Glibc

/// The process's standard error, for log lines that must never cost the process its life.
///
/// Foundation's `FileHandle.standardError.write(_:)` traps when the write fails. appexd's
/// standard error is its log, in the runtime folder: on a full file system (that folder is
/// often a small tmpfs) or a closed pipe, its next line would have ended appexd, and every
/// request it served. What can't be written here is dropped: there is nowhere else to say so.
public enum StandardError {
    /// Writes `line` and a newline, in one write where the kernel takes it whole, so that
    /// lines of processes sharing the log don't interleave.
    public static func write(line: String) {
        write(Array(line.utf8) + [UInt8(ascii: "\n")])
    }

    /// Writes `bytes`, however many writes that takes, unless a write fails.
    public static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = Glibc.write(STDERR_FILENO, buffer.baseAddress! + written, buffer.count - written)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
    }
}
